package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/** A connection made as kubectl would make it, and the errors of a call in words with the fix. */
public final class Cluster implements AutoCloseable {
  public final KubernetesClient client;
  /** The namespace of {@code -n}, else the context's, else {@code default}. */
  public final String namespace;
  /** The token is {@code --token}'s, not the kubeconfig's: what a 401 asks to fix. */
  private final boolean tokenFlag;

  private Cluster(KubernetesClient client, String namespace, boolean tokenFlag) {
    this.client = client;
    this.namespace = namespace;
    this.tokenFlag = tokenFlag;
  }

  public static Cluster connect(ClusterOptions options) {
    return connect(options, System.err);
  }

  /** @param log where {@code -v=6} logs each request */
  static Cluster connect(ClusterOptions options, PrintStream log) {
    Config config = config(options);
    config.setRequestRetryBackoffLimit(1);
    String namespace = options.namespace != null ? options.namespace
        : config.getNamespace() != null ? config.getNamespace() : "default";
    KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config);
    if (options.verbosity >= ClusterOptions.LOG_REQUESTS) {
      builder.withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(RequestLog.NAME, new RequestLog(log)));
    }
    return new Cluster(builder.build(), namespace, options.token != null);
  }

  /**
   * The configuration kubectl would use, read by Fabric8: {@code --kubeconfig}'s file, else the files
   * of {@code KUBECONFIG} merged (the first to set an entry wins), else {@code ~/.kube/config}; then
   * {@code --context}, then kubectl's overrides: {@code --server}, {@code --token} (in place of the user's
   * token or credential plugin), {@code --certificate-authority} (in place of the cluster's CA data and
   * its insecure-skip-tls-verify), {@code --as}/{@code --as-group} and {@code --request-timeout}. Checked here, not in Fabric8: a
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
    overrides(options, config);
    if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
      throw new CliException(ExitCodes.NO_CLUSTER, "no cluster configured in " + files(options)
          + " (set --kubeconfig, KUBECONFIG or --context)");
    }
    if (options.as != null) {
      config.setImpersonateUsername(options.as);
      config.setImpersonateGroups(options.asGroups.toArray(String[]::new));
    }
    int timeout = (int) Math.min(Integer.MAX_VALUE, options.requestTimeout.toMillis()); // 0: none, as Fabric8's
    config.setRequestTimeout(timeout);
    config.setConnectionTimeout(timeout == 0 ? 10_000 : Math.min(timeout, 10_000));
    return config;
  }

  /** What kubectl's flags put in place of the kubeconfig's entries. */
  private static void overrides(ClusterOptions options, Config config) {
    if (options.server != null) {
      config.setMasterUrl(options.server);
    }
    if (options.token != null) {
      config.setOauthToken(options.token);
      config.setOauthTokenProvider(null);
    }
    if (options.certificateAuthority != null) {
      if (!Files.isReadable(Path.of(options.certificateAuthority))) {
        throw new CliException(ExitCodes.USAGE, "cannot read --certificate-authority " + options.certificateAuthority);
      }
      config.setCaCertFile(options.certificateAuthority);
      config.setCaCertData(null);
      config.setTrustCerts(false);
    }
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
    if (code == 401 || goAway(e) && refusedOverHttp11()) {
      return unauthorized(what);
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

  private CliException unauthorized(String what) {
    return new CliException(ExitCodes.NO_CLUSTER, what + (tokenFlag
        ? ": the token of --token was not accepted (401 Unauthorized); pass a valid one (kubectl create token"
            + " SERVICEACCOUNT -n NAMESPACE makes one) or leave --token out to use the kubeconfig's credentials"
        : ": the credentials of the kubeconfig were not accepted (401 Unauthorized); renew the context's token or"
            + " certificate, or log in again (kubectl config view --minify shows the user in use)"));
  }

  /**
   * The server closed the HTTP/2 connection under the request (GOAWAY). The API server answers a request it
   * cannot authenticate with 401 and closes its connection so; the JDK's HTTP client (before Java 24) then
   * fails the request with the GOAWAY and loses the 401.
   */
  private static boolean goAway(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("GOAWAY")) {
        return true;
      }
    }
    return false;
  }

  /** One request more, over HTTP/1.1, where the 401 arrives: whether the server refuses the credentials. */
  private boolean refusedOverHttp11() {
    Config config = client.getConfiguration();
    config.setHttp2Disable(true); // read when a client is built: this connection's client is built already
    try (KubernetesClient probe = new KubernetesClientBuilder().withConfig(config).build()) {
      probe.getApiGroups();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 401;
    }
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
