package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.GRACE_PERIOD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A dependent that a cascade put under synchronous deletion and that survives it (its DELETE
 * refused, then another owner adopted it) keeps nothing the cascade wrote on it: a later deletion of
 * its own follows its own settings (issue 21 case 9: it used to keep the owner's grace period as its
 * own {@code syncgc.dev/grace-period-seconds}).
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class CascadeSurvivorIT {
  private static final String UNDELETABLE = "e2e.syncgc.dev/undeletable";
  private static final String POLICY = "e2e-syncgc-undeletable-widgets";

  private static final KubernetesClient client = TestCluster.get().client();

  /** A ValidatingAdmissionPolicy refusing every DELETE of a Widget labelled undeletable. */
  @BeforeAll
  static void refuseDeletes() {
    String yaml = """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: %1$s}
        spec:
          failurePolicy: Fail
          matchConstraints:
            resourceRules:
            - apiGroups: ["%2$s"]
              apiVersions: ["*"]
              operations: ["DELETE"]
              resources: ["widgets"]
          validations:
          - expression: "!has(oldObject.metadata.labels) || !('%3$s' in oldObject.metadata.labels)"
            message: "this Widget may not be deleted (e2e)"
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata: {name: %1$s}
        spec:
          policyName: %1$s
          validationActions: [Deny]
        """.formatted(POLICY, TestCrds.GROUP, UNDELETABLE);
    client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).forceConflicts().serverSideApply();
  }

  @AfterAll
  static void allowDeletes() {
    client.load(new ByteArrayInputStream(("""
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata: {name: %1$s}
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: %1$s}
        """).formatted(POLICY).getBytes(StandardCharsets.UTF_8))).delete();
  }

  @Test
  void aSurvivorOfACascadeKeepsNothingTheCascadeWroteOnIt(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(GRACE_PERIOD, "7").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(owner)
        .label(UNDELETABLE, "true").apply();
    Widgets.create(client, ns.name(), "leaf").ownedBy(mid).apply();
    await("the admission policy refuses a DELETE").atMost(SETUP_DEADLINE).ignoreExceptions()
        .until(() -> refused(Widgets.create(client, ns.name(), "probe").label(UNDELETABLE, "true").apply()));

    Widgets.widget(client, ns.name(), "owner").delete();
    await("mid finalized by the cascade").atMost(SETUP_DEADLINE).until(() -> Widgets.reload(client, mid)
        .getMetadata().getFinalizers().contains(FINALIZER));

    GenericKubernetesResource keeper = Widgets.create(client, ns.name(), "keeper").apply();
    Widgets.widget(client, ns.name(), "mid").edit(m -> {
      List<OwnerReference> refs = new java.util.ArrayList<>(m.getMetadata().getOwnerReferences());
      refs.add(Widgets.ownerReference(keeper));
      m.getMetadata().setOwnerReferences(refs);
      return m;
    });

    ObjectAwaits.awaitGone(client, owner, Duration.ofSeconds(60));
    await("mid keeps nothing of the cascade").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      GenericKubernetesResource now = Widgets.reload(client, mid);
      assertNull(now.getMetadata().getDeletionTimestamp(), "mid survives");
      assertEquals(List.of(), now.getMetadata().getFinalizers());
      Map<String, String> annotations = now.getMetadata().getAnnotations() == null ? Map.of()
          : now.getMetadata().getAnnotations();
      assertEquals(List.of(), annotations.keySet().stream().filter(k -> k.startsWith("syncgc.dev/")).toList());
    });
  }

  private boolean refused(GenericKubernetesResource probe) {
    try {
      Widgets.widget(client, probe.getMetadata().getNamespace(), probe.getMetadata().getName()).delete();
      return false;
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      return e.getCode() == 422 || e.getCode() == 403;
    }
  }
}
