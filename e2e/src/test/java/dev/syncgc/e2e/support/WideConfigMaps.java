package dev.syncgc.e2e.support;

import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.stream.IntStream;

/** A wide owner: a Synchronous ConfigMap {@code root} and {@code d-0}..{@code d-(n-1)} it owns. */
public final class WideConfigMaps {
  private WideConfigMaps() {}

  /** Creates the root, waits for syncgc's finalizer on it, then its dependents (in parallel); returns the root. */
  public static ConfigMap create(KubernetesClient client, String namespace, int dependents) {
    ConfigMap root = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
        .withName("root").addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build()).create();
    ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(namespace).withName("root").get());
    IntStream.range(0, dependents).parallel().forEach(i -> client.configMaps().inNamespace(namespace)
        .resource(new ConfigMapBuilder().withNewMetadata().withName("d-" + i).addNewOwnerReference()
            .withApiVersion("v1").withKind("ConfigMap").withName("root").withUid(root.getMetadata().getUid())
            .withBlockOwnerDeletion(true).endOwnerReference().endMetadata().build()).create());
    return root;
  }

  /** How many of the dependents are left. */
  public static long left(KubernetesClient client, String namespace) {
    return client.configMaps().inNamespace(namespace).list().getItems().stream()
        .filter(c -> c.getMetadata().getName().startsWith("d-")).count();
  }

  /**
   * {@code kubectl delete --cascade=orphan} on the root: the API server adds the {@code orphan}
   * finalizer to it. Returns the root as written (its resourceVersion is the revision of the request).
   */
  public static ConfigMap orphanRequest(KubernetesClient client, String namespace) {
    String answer = client.raw(client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/"
        + namespace + "/configmaps/root", "DELETE", java.util.Map.of("apiVersion", "v1", "kind", "DeleteOptions",
        "propagationPolicy", "Orphan"));
    return client.getKubernetesSerialization().unmarshal(answer, ConfigMap.class);
  }
}
