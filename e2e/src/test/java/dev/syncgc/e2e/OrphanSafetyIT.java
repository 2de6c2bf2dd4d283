package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import dev.syncgc.e2e.support.Pods;
import dev.syncgc.e2e.support.SpecNames;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Orphan keeps every dependent, whatever syncgc can see: the owner's
 * dependents are handed to the API server's orphaning, and the propagation in force when the
 * deletion began decides, whatever changed since.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class OrphanSafetyIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration STEADY = Duration.ofSeconds(3);
  private static final String POLICY_LABEL = "e2e.syncgc.dev/orphan-safety";

  private final KubernetesClient client = TestCluster.get().client();
  private final List<String> policies = new ArrayList<>();

  @AfterEach
  void deletePolicies() {
    policies.forEach(p -> client.genericKubernetesResources(PolicyIT.POLICY).withName(p).delete());
  }

  /**
   * A ServiceAccount is not among the kinds syncgc tracks by default: syncgc cannot remove its
   * reference, and the built-in collector deleted it once the owner was gone. When the owner
   * disappears, the reference must already be gone (the API server's orphaning removes it first).
   */
  @Test
  void orphanOwnerKeepsADependentOfAKindSyncgcDoesNotTrack(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").annotate(PROPAGATION, "Orphan")
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
    ServiceAccount sa = client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("data").withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
        .build()).create();

    Widgets.widget(client, ns.name(), "owner").delete();
    ObjectAwaits.awaitGone(client, owner, DEADLINE);

    ServiceAccount now = client.serviceAccounts().inNamespace(ns.name()).withName("data").get();
    assertNotNull(now, "the ServiceAccount survives its Orphan owner");
    assertEquals(sa.getMetadata().getUid(), now.getMetadata().getUid());
    assertEquals(List.of(), uids(now), "no reference to the gone owner is left for the built-in collector");
    assertNull(now.getMetadata().getDeletionTimestamp());
    Events.await(client, owner, "DependentsOrphaned");
    assertSurvivesWithoutOwners(sa);
  }

  /**
   * An Orphan Pod in its grace period: the API server does not change the finalizers of an object
   * whose graceful deletion is pending, so the hand-over waits for the grace period to end; the
   * dependent is kept throughout and orphaned before the Pod goes.
   */
  @Test
  void orphanPodInItsGracePeriodIsHandedToOrphaningWhenTheGracePeriodEnds(TestNamespace ns) {
    Pod pod = Pods.createRunning(client, ns.name(), "pod");
    client.pods().inNamespace(ns.name()).withName("pod")
        .edit(p -> new PodBuilder(p).editMetadata().addToAnnotations(PROPAGATION, "Orphan").endMetadata().build());
    await("finalizer on the Pod").atMost(SETUP_DEADLINE).until(() -> client.pods().inNamespace(ns.name())
        .withName("pod").get().getMetadata().getFinalizers().contains(SpecNames.FINALIZER));
    ConfigMap cm = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
        .withNewMetadata().withName("data").withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1")
            .withKind("Pod").withName("pod").withUid(pod.getMetadata().getUid()).build()).endMetadata()
        .build()).create();

    client.pods().inNamespace(ns.name()).withName("pod").withGracePeriod(5).delete();
    await("the Pod gone").atMost(DEADLINE).pollInterval(Duration.ofMillis(200))
        .until(() -> client.pods().inNamespace(ns.name()).withName("pod").get() == null);

    ConfigMap now = client.configMaps().inNamespace(ns.name()).withName("data").get();
    assertNotNull(now, "the ConfigMap survives its Orphan Pod");
    assertEquals(cm.getMetadata().getUid(), now.getMetadata().getUid());
    assertEquals(List.of(), uids(now));
    assertNull(now.getMetadata().getDeletionTimestamp());
  }

  /**
   * An Orphan policy (priority 10) and a Synchronous catch-all (priority 0) select the owner; it is
   * deleted while the operator is down, and the Orphan policy is deleted before the operator comes
   * back. The propagation in force when the deletion began (Orphan) decides.
   */
  @Test
  void orphanPolicyInForceWhenTheDeletionBeganDecidesAfterItIsDeleted(TestNamespace ns) {
    String label = Namespaces.randomSuffix(8);
    String orphan = createPolicy("e2e-orphan-" + label, label, "Orphan", 10);
    createPolicy("e2e-sync-" + label, label, "Synchronous", 0);
    SharedOperator.pause();
    try (OperatorProcess operator = OperatorProcess.startReady("orphan-policy-deleted")) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").label(POLICY_LABEL, label)
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "kept").ownedBy(owner).apply();
      await("the Orphan policy recorded on the owner").atMost(SETUP_DEADLINE).until(() -> "Orphan".equals(
          Widgets.reload(client, owner).getMetadata().getAnnotations().get("syncgc.dev/last-valid-propagation")));
      operator.kill();

      Widgets.widget(client, ns.name(), "owner").delete();
      client.genericKubernetesResources(PolicyIT.POLICY).withName(orphan).delete();
      await("the Orphan policy gone").atMost(SETUP_DEADLINE)
          .until(() -> client.genericKubernetesResources(PolicyIT.POLICY).withName(orphan).get() == null);
      operator.start();
      operator.awaitReady();

      ObjectAwaits.awaitGone(client, owner, DEADLINE);
      assertSurvivesWithoutOwners(dependent);
    } finally {
      SharedOperator.resume();
    }
  }

  private String createPolicy(String name, String label, String propagation, int priority) {
    GcPolicies.create(client, name, Map.of(
        "kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget")),
        "selector", Map.of("matchLabels", Map.of(POLICY_LABEL, label)),
        "propagation", propagation,
        "priority", priority));
    policies.add(name);
    return name;
  }

  private static List<String> uids(HasMetadata o) {
    return o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  private void assertSurvivesWithoutOwners(HasMetadata dependent) {
    await(dependent.getMetadata().getName() + " survives, orphaned").during(STEADY)
        .atMost(STEADY.plusSeconds(10)).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          HasMetadata now = dependent instanceof ServiceAccount
              ? client.serviceAccounts().inNamespace(dependent.getMetadata().getNamespace())
                  .withName(dependent.getMetadata().getName()).get()
              : ObjectAwaits.current(client, dependent);
          return now != null && now.getMetadata().getDeletionTimestamp() == null && uids(now).isEmpty();
        });
  }
}
