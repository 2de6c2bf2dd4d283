package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.AuthProviderConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import org.junit.jupiter.api.Test;

class ClientConfigsTest {
  private static ConfigBuilder base() {
    return new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:6443");
  }

  private static ConfigBuilder cert() {
    return base().withClientCertData("Y2VydA==");
  }

  @Test
  void aCertificateWithoutTokenGetsAProviderWithoutToken() {
    Config in = base().withClientCertData("Y2VydA==").withClientKeyData("a2V5").build();
    Config out = ClientConfigs.withoutTokenRefreshForCertificates(in);
    assertNotNull(out.getOauthTokenProvider(), "the interceptor asks the provider, not the kubeconfig file");
    assertNull(out.getOauthTokenProvider().getToken());
    assertNull(out.getOauthToken());
    assertTrue(out.getClientCertData().equals("Y2VydA=="), "the certificate is kept");
  }

  @Test
  void aCertificateFileCountsToo() {
    assertTrue(ClientConfigs.certificateOnly(base().withClientCertFile("/tmp/admin.crt").build()));
  }

  @Test
  void everyOtherCredentialKeepsFabric8sRefresh() {
    for (Config c : new Config[] {
        base().withOauthToken("t").build(),
        cert().withOauthToken("t").build(),
        cert().withAutoOAuthToken("from-a-file").build(),
        cert().withUsername("u").withPassword("p").build(),
        cert().withAuthProvider(new AuthProviderConfigBuilder().withName("oidc").build()).build(),
        cert().withOauthTokenProvider(() -> "t").build(),
        base().build()}) {
      assertFalse(ClientConfigs.certificateOnly(c), c.toString());
      assertSame(c, ClientConfigs.withoutTokenRefreshForCertificates(c));
    }
  }
}
