package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.support.TestCrds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The GarbageCollectionPolicy of a policy scenario: it selects the scenario's root by label alone. */
final class Policies {
  static final String LABEL = "soak.syncgc.dev/opt-in";
  static final String ROUND_LABEL = "soak.syncgc.dev/round";
  private static final ResourceDefinitionContext POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("syncgc.dev").withVersion("v1alpha1").withKind("GarbageCollectionPolicy")
      .withPlural("garbagecollectionpolicies").withNamespaced(false).build();

  private Policies() {}

  static void create(KubernetesClient client, Scenario s, String round, String propagation) {
    client.genericKubernetesResources(POLICY).resource(new GenericKubernetesResourceBuilder()
        .withApiVersion("syncgc.dev/v1alpha1").withKind("GarbageCollectionPolicy")
        .withNewMetadata().withName(s.policy).addToLabels(ROUND_LABEL, round).endMetadata()
        .addToAdditionalProperties("spec", spec(s, propagation))
        .build()).create();
  }

  /** The policy's spec: a synchronous policy of a scenario with a short deadline sets it, and what it does. */
  static Map<String, Object> spec(Scenario s, String propagation) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget"),
        Map.of("group", TestCrds.GROUP, "kind", "ClusterWidget")));
    spec.put("selector", Map.of("matchLabels", Map.of(LABEL, s.policy)));
    spec.put("propagation", propagation);
    if (s.timesOut()) {
      spec.put("timeout", Oracle.TIMEOUT_MILLIS / 1000 + "s");
      spec.put("onTimeout", s.deadline == Scenario.Deadline.KEEP ? Generator.KEEP : Generator.RELEASE);
    }
    return spec;
  }

  /** Changes the policy's propagation (a merge patch of its spec). */
  static void setPropagation(KubernetesClient client, String name, String propagation) {
    client.genericKubernetesResources(POLICY).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"propagation\":\"" + propagation + "\"}}");
  }

  static void delete(KubernetesClient client, String name) {
    client.genericKubernetesResources(POLICY).withName(name).delete();
  }

  /** Deletes every policy of the round. */
  static void deleteRound(KubernetesClient client, String round) {
    client.genericKubernetesResources(POLICY).withLabel(ROUND_LABEL, round).delete();
  }
}
