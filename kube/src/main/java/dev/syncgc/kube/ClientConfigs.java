package dev.syncgc.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;

/**
 * Fabric8's token refresh, tamed for client-certificate credentials. Its TokenRefreshInterceptor
 * re-reads the kubeconfig once a minute looking for a new bearer token, and notes the time only when it
 * finds one: with a client certificate and no token (kind's kubeconfig, the local control plane's) it
 * re-read and re-parsed the kubeconfig on every request after the first minute, about a third of
 * syncgc's CPU and 37 KB of garbage per request in a 10,000-object cascade. A certificate is loaded once
 * when the client is built, so re-reading can never change it: such a config gets a token provider that
 * has no token, which the interceptor asks instead of the file. Any config with a token, a token file
 * (in-cluster), an auth provider, exec credentials or basic auth is returned as it is.
 */
public final class ClientConfigs {
  private ClientConfigs() {}

  public static Config withoutTokenRefreshForCertificates(Config config) {
    return certificateOnly(config)
        ? new ConfigBuilder(config).withOauthTokenProvider(() -> null).build()
        : config;
  }

  static boolean certificateOnly(Config c) {
    boolean certificate = notBlank(c.getClientCertData()) || notBlank(c.getClientCertFile());
    boolean other = notBlank(c.getOauthToken()) || notBlank(c.getAutoOAuthToken()) || c.getOauthTokenProvider() != null
        || c.getAuthProvider() != null || notBlank(c.getUsername()) || notBlank(c.getPassword());
    return certificate && !other;
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  /**
   * One line for a start-up that could not reach the API server: where it looked, what failed, what to
   * do (the stack trace says nothing a user can act on).
   */
  public static String unreachable(Config config, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String kubeconfig = System.getenv("KUBECONFIG");
    String from = System.getenv("KUBERNETES_SERVICE_HOST") != null && (kubeconfig == null || kubeconfig.isBlank())
        ? "the in-cluster service account" : "kubeconfig " + (kubeconfig == null || kubeconfig.isBlank()
            ? System.getProperty("user.home") + "/.kube/config" : kubeconfig)
            + (config.getCurrentContext() != null ? ", context " + config.getCurrentContext().getName() : "");
    String why = root.getMessage() == null ? root.getClass().getSimpleName()
        : root.getClass().getSimpleName() + ": " + root.getMessage();
    return "cannot reach the Kubernetes API server at " + config.getMasterUrl() + " (from " + from + "): " + why
        + "; check that KUBECONFIG names the cluster you mean and that it is running (kubectl cluster-info)";
  }
}
