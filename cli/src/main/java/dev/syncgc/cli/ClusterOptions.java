package dev.syncgc.cli;

import picocli.CommandLine.Option;

/** kubectl's usual flags, and the output format. */
public final class ClusterOptions {
  @Option(names = "--kubeconfig", description = "Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).")
  public String kubeconfig;

  @Option(names = "--context", description = "The kubeconfig context to use.")
  public String context;

  @Option(names = {"-n", "--namespace"}, description = "The namespace (default: the context's, else 'default').")
  public String namespace;

  @Option(names = {"-o", "--output"}, defaultValue = "text",
      description = "Output: text, json or yaml (default: ${DEFAULT-VALUE}).")
  public String output;
}
