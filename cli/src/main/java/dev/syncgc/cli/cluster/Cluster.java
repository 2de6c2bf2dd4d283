package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/** A connection made as kubectl would make it, and the errors of a call in words with the fix. */
public final class Cluster implements AutoCloseable {
  public final KubernetesClient client;
  /** The namespace of {@code -n}, else the context's, else {@code default}. */
  public final String namespace;

  private Cluster(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  public static Cluster connect(ClusterOptions options) {
    Config config = config(options);
    config.setRequestTimeout(30_000);
    config.setConnectionTimeout(10_000);
    config.setRequestRetryBackoffLimit(1);
    String namespace = options.namespace != null ? options.namespace
        : config.getNamespace() != null ? config.getNamespace() : "default";
    return new Cluster(new KubernetesClientBuilder().withConfig(config).build(), namespace);
  }

  /**
   * The configuration kubectl would use, read by Fabric8: {@code --kubeconfig}'s file, else the files
   * of {@code KUBECONFIG} merged (the first to set an entry wins), else {@code ~/.kube/config}; then
   * {@code --context} and {@code --as}/{@code --as-group}. Checked here, not in Fabric8: a
   * {@code --context} that no file has (Fabric8 would fall back to the current context, another
   * cluster perhaps) and a configuration with no server.
   */
  static Config config(ClusterOptions options) {
    if (!options.asGroups.isEmpty() && options.as == null) {
      throw new CliException(ExitCodes.USAGE, "--as-group needs --as (kubectl impersonates groups only with a user)");
    }
    Config config;
    try {
      if (options.kubeconfig != null) {
        if (!Files.isReadable(Path.of(options.kubeconfig))) {
          throw new CliException(ExitCodes.NO_CLUSTER, "cannot read kubeconfig " + options.kubeconfig
              + " (set --kubeconfig or KUBECONFIG to a readable file)");
        }
        config = Config.fromKubeconfig(options.context, new File(options.kubeconfig));
      } else {
        config = Config.autoConfigure(options.context);
      }
    } catch (KubernetesClientException | IllegalArgumentException e) {
      throw new CliException(ExitCodes.NO_CLUSTER, "cannot read the kubeconfig (" + files(options) + "): "
          + e.getMessage());
    }
    if (options.context != null && (config.getCurrentContext() == null
        || !options.context.equals(config.getCurrentContext().getName()))) {
      throw new CliException(ExitCodes.NO_CLUSTER, "context \"" + options.context + "\" not found in " + files(options)
          + " (kubectl config get-contexts lists them)");
    }
    if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
      throw new CliException(ExitCodes.NO_CLUSTER, "no cluster configured in " + files(options)
          + " (set --kubeconfig, KUBECONFIG or --context)");
    }
    if (options.as != null) {
      config.setImpersonateUsername(options.as);
      config.setImpersonateGroups(options.asGroups.toArray(String[]::new));
    }
    return config;
  }

  /** The kubeconfig files read, for messages. */
  private static String files(ClusterOptions options) {
    return options.kubeconfig != null ? options.kubeconfig : String.join(File.pathSeparator, Config.getKubeconfigFilenames());
  }

  /** Runs a call; a refusal, an absence or an unreachable server becomes a {@link CliException}. */
  public <T> T call(String what, Supplier<T> call) {
    try {
      return call.get();
    } catch (KubernetesClientException e) {
      throw failure(what, e);
    }
  }

  public CliException failure(String what, KubernetesClientException e) {
    int code = e.getCode();
    if (code == 403) {
      return new CliException(ExitCodes.FORBIDDEN, what + ": forbidden (" + e.getStatus().getMessage()
          + "); ask for get/list rights on it, or use another --context");
    }
    if (code == 401) {
      return new CliException(ExitCodes.NO_CLUSTER, what + ": not authenticated; check the credentials of the"
          + " kubeconfig context");
    }
    if (code == 404) {
      return new CliException(ExitCodes.NOT_FOUND, what + ": not found");
    }
    if (code <= 0 || unreachable(e)) {
      return new CliException(ExitCodes.NO_CLUSTER, what + ": cannot reach the API server at "
          + client.getConfiguration().getMasterUrl() + " (" + rootMessage(e) + "); is the cluster running?");
    }
    return new CliException(ExitCodes.ERROR, what + ": " + e.getMessage());
  }

  /** No answer at all: the connection failed (refused, reset, timed out, TLS), not a status from the server. */
  private static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException || t instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  @Override
  public void close() {
    client.close();
  }
}
