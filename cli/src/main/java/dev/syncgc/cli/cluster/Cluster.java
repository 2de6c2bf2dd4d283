package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
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
    Config config;
    try {
      String file = options.kubeconfig != null ? options.kubeconfig : System.getenv("KUBECONFIG");
      if (file != null && !file.isBlank()) {
        String first = file.split(java.io.File.pathSeparator)[0];
        if (!Files.isReadable(Path.of(first))) {
          throw new CliException(ExitCodes.NO_CLUSTER, "cannot read kubeconfig " + first
              + " (set --kubeconfig or KUBECONFIG to a readable file)");
        }
        config = Config.fromKubeconfig(options.context, Files.readString(Path.of(first)), first);
      } else {
        config = Config.autoConfigure(options.context);
      }
    } catch (IOException e) {
      throw new CliException(ExitCodes.NO_CLUSTER, "cannot read the kubeconfig: " + e.getMessage());
    } catch (KubernetesClientException | IllegalArgumentException e) {
      throw new CliException(ExitCodes.NO_CLUSTER, "no usable kubeconfig"
          + (options.context == null ? "" : " context " + options.context) + ": " + e.getMessage());
    }
    if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
      throw new CliException(ExitCodes.NO_CLUSTER, "no cluster configured (set --kubeconfig, KUBECONFIG or --context)");
    }
    config.setRequestTimeout(30_000);
    config.setConnectionTimeout(10_000);
    config.setRequestRetryBackoffLimit(1);
    String namespace = options.namespace != null ? options.namespace
        : config.getNamespace() != null ? config.getNamespace() : "default";
    return new Cluster(new KubernetesClientBuilder().withConfig(config).build(), namespace);
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
