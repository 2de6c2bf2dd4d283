package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The race of the synchronous-GC proposal ("unhandled case"), made to happen: the operator runs with
 * its ConfigMap watch held back ({@code SYNCGC_TEST_DELAY_EVENTS}), so a ConfigMap created just
 * before its owner's deletion is not in the graph when the owner's deletion is handled. Only the
 * freshness check can find it; each test proves from the operator's log that the check did, and
 * from the etcd revisions of the DELETED events that the order held.
 */
@ExtendWith(TestNamespace.Extension.class)
class RaceIT {
  private static final Duration HOLD_BACK = Duration.ofMillis(2500);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String FOUND = "freshness check found an object the watch has not delivered yet";
  private static OperatorProcess operator;

  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operatorWithItsConfigMapWatchHeldBack() {
    SharedOperator.pause();
    operator = OperatorProcess.start("race", List.of(),
        Map.of("SYNCGC_TEST_DELAY_EVENTS", "ConfigMap=" + HOLD_BACK.toMillis()));
    operator.awaitReady();
  }

  @AfterAll
  static void stop() {
    try {
      if (operator != null) {
        operator.close();
      }
    } finally {
      SharedOperator.resume();
    }
  }

  @Test
  void unseenDependentOfAnotherKindIsDeletedBeforeItsOwner(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      for (int round = 0; round < 5; round++) {
        GenericKubernetesResource owner = owner(ns.name(), "owner-" + round);
        ConfigMap dependent = configMap(ns.name(), "dependent-" + round, owner);
        Widgets.widget(client, ns.name(), owner.getMetadata().getName()).delete();

        long ownerGone = deletions.awaitDeleted(DEADLINE, owner).resourceVersion();
        long dependentGone = deletions.awaitDeleted(DEADLINE, dependent).resourceVersion();
        assertTrue(dependentGone < ownerGone, "round " + round + ": dependent deleted at " + dependentGone
            + ", owner at " + ownerGone);
        assertCaughtByTheCheck(ns.name(), dependent);
      }
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
    }
  }

  /** owner → child (seen) → grandchild (not seen): the child must not be deleted as a leaf. */
  @Test
  void unseenGrandchildIsDeletedBeforeItsParentAndTheOwner(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      GenericKubernetesResource owner = owner(ns.name(), "owner");
      GenericKubernetesResource child = Widgets.create(client, ns.name(), "child").ownedBy(owner).apply();
      ConfigMap grandchild = configMap(ns.name(), "grandchild", child);
      Widgets.widget(client, ns.name(), "owner").delete();

      deletions.awaitDeleted(DEADLINE, List.of(owner, child, grandchild));
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      assertBefore(deletions, grandchild, child);
      assertBefore(deletions, child, owner);
      assertCaughtByTheCheck(ns.name(), grandchild);
    }
  }

  /** Several owners deleted at once: each unseen dependent is still found, and goes first. */
  @Test
  void ownersDeletedTogetherEachWaitForTheirUnseenDependent(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      List<GenericKubernetesResource> owners = new ArrayList<>();
      List<ConfigMap> dependents = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        owners.add(owner(ns.name(), "owner-" + i));
      }
      for (int i = 0; i < owners.size(); i++) {
        dependents.add(configMap(ns.name(), "dependent-" + i, owners.get(i)));
      }
      for (GenericKubernetesResource owner : owners) {
        Widgets.widget(client, ns.name(), owner.getMetadata().getName()).delete();
      }

      for (int i = 0; i < owners.size(); i++) {
        deletions.awaitDeleted(DEADLINE, List.of(owners.get(i), dependents.get(i)));
        assertBefore(deletions, dependents.get(i), owners.get(i));
        assertCaughtByTheCheck(ns.name(), dependents.get(i));
      }
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
    }
  }

  /**
   * With --namespaces, a cluster-scoped owner's check lists only the watched namespaces: a dependent
   * in another namespace is neither fed to the graph nor deleted by syncgc.
   */
  @Test
  void restrictedNamespacesAreTheOnlyOnesListedForAClusterScopedOwner(TestNamespace ns) {
    String outside = Namespaces.create(client, "RaceIT restricted namespaces, unwatched");
    String name = ns.name() + "-cluster-owner";
    operator.stop(); // one operator at a time
    OperatorProcess restricted = OperatorProcess.start("race-restricted", List.of("--namespaces", ns.name()),
        Map.of("SYNCGC_TEST_DELAY_EVENTS", "ConfigMap=" + HOLD_BACK.toMillis()));
    try (restricted; DeletionOrder deletions = DeletionOrder.of(TestCrds.clusterWidgets(client))
        .watch(client.configMaps().inNamespace(ns.name()))) {
      restricted.awaitReady();
      GenericKubernetesResource owner = Widgets.createCluster(client, name).synchronous().finalizer(FINALIZER)
          .apply();
      ConfigMap inside = configMap(ns.name(), "inside", owner);
      configMap(outside, "unwatched", owner);
      Widgets.clusterWidget(client, name).delete();

      deletions.awaitDeleted(DEADLINE, List.of(owner, inside));
      assertBefore(deletions, inside, owner);
      String log = restricted.log();
      assertTrue(log.lines().anyMatch(l -> l.contains(FOUND) && l.contains("name=inside ")),
          "inside found by the check: " + restricted.logFile());
      assertFalse(log.lines().anyMatch(l -> l.contains(outside)), "nothing of " + outside + " in "
          + restricted.logFile());
    } finally {
      Widgets.clusterWidget(client, name).delete();
      Namespaces.deleteAsync(client, outside);
      operator.start();
      operator.awaitReady();
    }
  }

  private GenericKubernetesResource owner(String namespace, String name) {
    return Widgets.create(client, namespace, name).synchronous().finalizer(FINALIZER).apply();
  }

  private ConfigMap configMap(String namespace, String name, HasMetadata owner) {
    return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
        .addToData("k", "v").build()).create();
  }

  private void assertCaughtByTheCheck(String namespace, HasMetadata object) {
    String name = "name=" + object.getMetadata().getName() + " ";
    assertTrue(operator.log().lines().anyMatch(l -> l.contains(FOUND) && l.contains("namespace=" + namespace)
            && l.contains(name)),
        "the race happened and the freshness check caught " + object.getMetadata().getName()
            + " (see " + operator.logFile() + ")");
  }

  private static void assertBefore(DeletionOrder deletions, HasMetadata first, HasMetadata then) {
    long a = deletions.find(first).orElseThrow().resourceVersion();
    long b = deletions.find(then).orElseThrow().resourceVersion();
    assertTrue(a < b, first.getMetadata().getName() + " (revision " + a + ") deleted before "
        + then.getMetadata().getName() + " (revision " + b + ")");
  }

}
