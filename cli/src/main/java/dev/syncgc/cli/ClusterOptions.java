package dev.syncgc.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** kubectl's usual flags, and the output format. */
public final class ClusterOptions {
  @Option(names = "--kubeconfig", description = "Path to the kubeconfig file (default: the files of $KUBECONFIG merged"
      + " as kubectl merges them, else ~/.kube/config).")
  public String kubeconfig;

  @Option(names = "--context", description = "The kubeconfig context to use (default: its current-context).")
  public String context;

  @Option(names = "--as", paramLabel = "USER", description = "Impersonate this user (or service account,"
      + " system:serviceaccount:NAMESPACE:NAME), as kubectl --as.")
  public String as;

  @Option(names = "--as-group", paramLabel = "GROUP", description = "Impersonate this group too; repeat for several"
      + " (needs --as).")
  public List<String> asGroups = new ArrayList<>();

  @Option(names = {"-n", "--namespace"}, description = "The namespace (default: the context's, else 'default').")
  public String namespace;

  @Option(names = {"-o", "--output"}, defaultValue = "text",
      description = "Output: text, json or yaml (default: ${DEFAULT-VALUE}).")
  public String output;
}
