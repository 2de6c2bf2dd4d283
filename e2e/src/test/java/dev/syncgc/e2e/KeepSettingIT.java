package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An owner keeps the last valid setting it was opted in with: an annotation made invalid since, a
 * restart of the operator, or a policy not loaded yet never turns an Orphan owner into a
 * Synchronous one (two data-loss cases found in review).
 */
@ExtendWith(TestNamespace.Extension.class)
class KeepSettingIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration STEADY = Duration.ofSeconds(3);

  private final KubernetesClient client = TestCluster.get().client();
  private String policy;

  @AfterEach
  void deletePolicy() {
    if (policy != null) {
      client.genericKubernetesResources(PolicyIT.POLICY).withName(policy).delete();
    }
  }

  @Test
  void orphanOwnerWhoseAnnotationBecomesInvalidStillOrphansItsDependent(TestNamespace ns) {
    SharedOperator.get();
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "x").annotate(PROPAGATION, "Orphan")
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "d").ownedBy(owner).apply();
    Widgets.widget(client, ns.name(), "x").edit(w -> {
      w.getMetadata().getAnnotations().put(PROPAGATION, "orphan"); // lower case: invalid
      return w;
    });
    Events.awaitContaining(client, owner, "Warning", "InvalidAnnotation", "orphan", "Orphan");

    Widgets.widget(client, ns.name(), "x").delete();

    ObjectAwaits.awaitGone(client, owner, DEADLINE);
    assertSurvivesWithoutOwners(dependent);
    Events.await(client, owner, "DependentsOrphaned");
    assertNoCascade(owner);
  }

  /** The review's second case: SIGKILL, delete, start; the policy must decide from the first sync on. */
  @Test
  void policyOrphanOwnerDeletedWhileTheOperatorWasDownStillOrphansAfterTheRestart(TestNamespace ns) {
    SharedOperator.pause();
    String label = Namespaces.randomSuffix(8);
    policy = createOrphanPolicy(label);
    try (OperatorProcess operator = OperatorProcess.startReady("keep-setting-restart")) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "wy").label(POLICY_LABEL, label)
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "ge").ownedBy(owner).apply();
      operator.kill();

      Widgets.widget(client, ns.name(), "wy").delete();
      operator.start();
      operator.awaitReady();

      ObjectAwaits.awaitGone(client, owner, DEADLINE);
      assertSurvivesWithoutOwners(dependent);
      assertNoCascade(owner);
    } finally {
      SharedOperator.resume();
    }
  }

  /**
   * An object finalized before syncgc recorded settings on objects (an older version), deleted while
   * the operator is down: only the policy tells that it orphans, so the policy must be in force
   * before the first object is decided.
   */
  @Test
  void policyIsInForceBeforeTheFirstObjectIsDecided(TestNamespace ns) {
    SharedOperator.pause();
    try {
      String label = Namespaces.randomSuffix(8);
      policy = createOrphanPolicy(label);
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "legacy").label(POLICY_LABEL, label)
          .finalizer(FINALIZER).apply();
      GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "kept").ownedBy(owner).apply();
      Widgets.widget(client, ns.name(), "legacy").delete();

      try (OperatorProcess operator = OperatorProcess.startReady("keep-setting-policy-first")) {
        ObjectAwaits.awaitGone(client, owner, DEADLINE);
        assertSurvivesWithoutOwners(dependent);
        assertTrue(operator.log().contains("policies loaded before the workers start count="),
            "policies loaded before the workers: " + operator.logFile());
      }
    } finally {
      SharedOperator.resume();
    }
  }

  private static final String POLICY_LABEL = "e2e.syncgc.dev/keep-setting";

  private String createOrphanPolicy(String label) {
    String name = "e2e-keep-" + label;
    GcPolicies.create(client, name, Map.of(
        "kinds", List.of(Map.of("group", dev.syncgc.e2e.support.TestCrds.GROUP, "kind", "Widget")),
        "selector", Map.of("matchLabels", Map.of(POLICY_LABEL, label)),
        "propagation", "Orphan"));
    return name;
  }

  private void assertSurvivesWithoutOwners(HasMetadata dependent) {
    await(dependent.getMetadata().getName() + " survives, orphaned").during(STEADY)
        .atMost(STEADY.plusSeconds(10)).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, dependent);
          return now != null && now.getMetadata().getDeletionTimestamp() == null
              && now.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList().isEmpty();
        });
  }

  private void assertNoCascade(HasMetadata owner) {
    List<String> reasons = Events.bySyncgc(client, owner).stream().map(e -> e.getReason()).toList();
    assertFalse(reasons.contains("SynchronousDeletionStarted"), "no synchronous cascade: " + reasons);
    assertEquals(List.of(), reasons.stream().filter(r -> r.startsWith("SynchronousDeletion")).toList());
  }
}
