package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.SecureRandom;
import java.time.Duration;

/** Fresh, uniquely named namespaces for tests. */
public final class Namespaces {
  /** Label on every namespace created here, to find leftovers. */
  public static final String LABEL = "e2e.syncgc.dev/test";
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Namespaces() {}

  /** Creates {@code e2e-<8 random chars>}; {@code description} is kept as an annotation. */
  public static String create(KubernetesClient client, String description) {
    String name = "e2e-" + randomSuffix(8);
    client.namespaces().resource(new NamespaceBuilder()
        .withNewMetadata()
            .withName(name)
            .addToLabels(LABEL, "true")
            .addToAnnotations("e2e.syncgc.dev/description", description)
        .endMetadata()
        .build()).create();
    return name;
  }

  /** Requests the deletion and returns at once; missing namespaces are ignored. */
  public static void deleteAsync(KubernetesClient client, String name) {
    client.namespaces().withName(name).delete();
  }

  /** Pods are only admitted once the namespace's {@code default} ServiceAccount exists. */
  public static void awaitDefaultServiceAccount(KubernetesClient client, String namespace) {
    await("ServiceAccount default in " + namespace).atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> client.serviceAccounts().inNamespace(namespace).withName("default").get() != null);
  }

  public static String randomSuffix(int length) {
    StringBuilder s = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      s.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return s.toString();
  }
}
