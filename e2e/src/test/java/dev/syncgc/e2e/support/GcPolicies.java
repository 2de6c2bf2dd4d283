package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.Optional;

/** GarbageCollectionPolicies for the tests: created with a given spec, deleted by name. */
public final class GcPolicies {
  public static final ResourceDefinitionContext POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("syncgc.dev").withVersion("v1alpha1").withKind("GarbageCollectionPolicy")
      .withPlural("garbagecollectionpolicies").withNamespaced(false).build();

  private GcPolicies() {}

  /** Creates the policy {@code name} with this spec; returns the name. */
  public static String create(KubernetesClient client, String name, Map<String, Object> spec) {
    client.genericKubernetesResources(POLICY).resource(policy(name, spec)).create();
    return name;
  }

  /**
   * The API server's refusal of a policy with this spec, or empty if it takes it: a server-side dry
   * run (admission and the CRD's schema and rules run, nothing is stored, no operator sees it).
   */
  public static Optional<KubernetesClientException> refusal(KubernetesClient client, String name,
      Map<String, Object> spec) {
    try {
      client.genericKubernetesResources(POLICY).resource(policy(name, spec)).dryRun().create();
      return Optional.empty();
    } catch (KubernetesClientException e) {
      return Optional.of(e);
    }
  }

  public static GenericKubernetesResource policy(String name, Map<String, Object> spec) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("syncgc.dev/v1alpha1").withKind("GarbageCollectionPolicy")
        .withNewMetadata().withName(name).endMetadata()
        .addToAdditionalProperties("spec", spec)
        .build();
  }

  public static void delete(KubernetesClient client, String name) {
    client.genericKubernetesResources(POLICY).withName(name).delete();
  }
}
