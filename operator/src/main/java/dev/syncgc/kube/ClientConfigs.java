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
}
