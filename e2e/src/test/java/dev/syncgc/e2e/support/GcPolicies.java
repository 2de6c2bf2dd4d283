package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;

/** GarbageCollectionPolicies for the tests: created with a given spec, deleted by name. */
public final class GcPolicies {
  public static final ResourceDefinitionContext POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("syncgc.dev").withVersion("v1alpha1").withKind("GarbageCollectionPolicy")
      .withPlural("garbagecollectionpolicies").withNamespaced(false).build();

  private GcPolicies() {}

  /** Creates the policy {@code name} with this spec; returns the name. */
  public static String create(KubernetesClient client, String name, Map<String, Object> spec) {
    client.genericKubernetesResources(POLICY).resource(new GenericKubernetesResourceBuilder()
        .withApiVersion("syncgc.dev/v1alpha1").withKind("GarbageCollectionPolicy")
        .withNewMetadata().withName(name).endMetadata()
        .addToAdditionalProperties("spec", spec)
        .build()).create();
    return name;
  }

  public static void delete(KubernetesClient client, String name) {
    client.genericKubernetesResources(POLICY).withName(name).delete();
  }
}
