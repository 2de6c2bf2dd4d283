package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rings reached by a cascade from above (SPEC "Synchronous deletion" step 2): a ring whose only
 * outside owners are being deleted goes with the cascade, its own dependents first, released as a
 * unit, the deleted owner last. Order is read from the etcd revisions of the watch events.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class RingCascadeIT {
  private static final Duration GONE_DEADLINE = Duration.ofSeconds(60);
  private static final String HOLD = "example.com/hold";

  private final KubernetesClient client = TestCluster.get().client();

  /**
   * A cluster-scoped root owns a ring of two ClusterWidgets (k1, k2); k2 owns a namespaced ring of
   * two kinds, a Widget w and a ConfigMap cm. Everything goes, rings after what they own, root last.
   */
  @Test
  void ringsOfSeveralKindsNamespacedAndClusterScopedGoWithTheirOwner(TestNamespace ns) {
    String p = ns.name() + "-";
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(TestCrds.clusterWidgets(client))
        .watch(client.configMaps().inNamespace(ns.name()))) {
      GenericKubernetesResource root = Widgets.createCluster(client, p + "root").synchronous()
          .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource k1 = Widgets.createCluster(client, p + "k1").ownedBy(root).apply();
      GenericKubernetesResource k2 = Widgets.createCluster(client, p + "k2").ownedBy(k1).apply();
      GenericKubernetesResource w = Widgets.create(client, ns.name(), "w").ownedBy(k2).apply();
      ConfigMap cm = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm").addToOwnerReferences(Widgets.ownerReference(w)).endMetadata()
          .build()).create();
      Widgets.clusterWidget(client, p + "k1").edit(o -> {
        o.getMetadata().getOwnerReferences().add(Widgets.ownerReference(k2));
        return o;
      });
      Widgets.widget(client, ns.name(), "w").edit(o -> {
        o.getMetadata().getOwnerReferences().add(Widgets.ownerReference(cm));
        return o;
      });

      Widgets.clusterWidget(client, p + "root").delete();

      List<HasMetadata> all = List.of(root, k1, k2, w, cm);
      deletions.awaitDeleted(GONE_DEADLINE, all);
      deletions.checkWatches();
      for (String inner : List.of("w", "cm")) {
        deletions.assertBefore(inner, p + "k1");
        deletions.assertBefore(inner, p + "k2");
      }
      for (String member : List.of(p + "k1", p + "k2", "w", "cm")) {
        deletions.assertBefore(member, p + "root");
      }
      Events.await(client, w, "DependencyCycle");
      Events.await(client, k1, "DependencyCycle");
    } finally {
      for (String name : List.of("root", "k1", "k2")) {
        Widgets.clusterWidget(client, p + name).delete();
      }
    }
  }

  /** A member held by another controller's finalizer is waited for; then the ring goes, owner last. */
  @Test
  void ringMemberHeldByAnotherControllerIsWaitedForThenReleased(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource r = owner(ns, "r");
      GenericKubernetesResource x = Widgets.create(client, ns.name(), "x").ownedBy(r).apply();
      GenericKubernetesResource y = Widgets.create(client, ns.name(), "y").ownedBy(x).finalizer(HOLD).apply();
      closeRing(ns, x, y);
      try {
        Widgets.widget(client, ns.name(), "r").delete();

        awaitBeingDeleted(x);
        awaitBeingDeleted(y);
        Events.awaitContaining(client, r, "Normal", "WaitingForDependents", "Widget/" + ns.name() + "/x");
        assertTrue(ObjectAwaits.exists(client, r) && ObjectAwaits.exists(client, x), "the ring waits for y's holder");
      } finally {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "y"), HOLD);
      }
      deletions.awaitDeleted(GONE_DEADLINE, List.of(r, x, y));
      deletions.assertBefore("x", "r");
      deletions.assertBefore("y", "r");
      Events.await(client, x, "DependencyCycle");
    }
  }

  /** A ring that joins an owner's tree while the owner is being deleted goes with it. */
  @Test
  void ringCreatedWhileItsOwnerIsBeingDeletedGoesWithIt(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource r = owner(ns, "r");
      GenericKubernetesResource held = Widgets.create(client, ns.name(), "held").ownedBy(r).finalizer(HOLD).apply();
      try {
        Widgets.widget(client, ns.name(), "r").delete();
        awaitBeingDeleted(held);
        GenericKubernetesResource x = Widgets.create(client, ns.name(), "x").apply();
        GenericKubernetesResource y = Widgets.create(client, ns.name(), "y").ownedBy(x).apply();
        closeRing(ns, x, y);
        Widgets.widget(client, ns.name(), "x").edit(o -> {
          o.getMetadata().getOwnerReferences().add(Widgets.ownerReference(r));
          return o;
        });

        deletions.awaitDeleted(GONE_DEADLINE, List.of(x, y));
        assertTrue(ObjectAwaits.exists(client, r), "r still waits for held");
      } finally {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      }
      deletions.awaitDeleted(GONE_DEADLINE, r);
      deletions.assertBefore("x", "r");
      deletions.assertBefore("held", "r");
    }
  }

  /** r owns a and b, both own x; x and y own each other: the ring is reached through a diamond. */
  @Test
  void ringReachedThroughADiamondGoesWithTheDiamond(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource r = owner(ns, "r");
      GenericKubernetesResource a = Widgets.create(client, ns.name(), "a").ownedBy(r).apply();
      GenericKubernetesResource b = Widgets.create(client, ns.name(), "b").ownedBy(r).apply();
      GenericKubernetesResource x = Widgets.create(client, ns.name(), "x").ownedBy(a).ownedBy(b).apply();
      GenericKubernetesResource y = Widgets.create(client, ns.name(), "y").ownedBy(x).apply();
      closeRing(ns, x, y);

      Widgets.widget(client, ns.name(), "r").delete();

      deletions.awaitDeleted(GONE_DEADLINE, List.of(r, a, b, x, y));
      deletions.checkWatches();
      for (String member : List.of("x", "y")) {
        deletions.assertBefore(member, "a");
        deletions.assertBefore(member, "b");
      }
      deletions.assertBefore("a", "r");
      deletions.assertBefore("b", "r");
    }
  }

  private GenericKubernetesResource owner(TestNamespace ns, String name) {
    return Widgets.create(client, ns.name(), name).synchronous().annotate(TIMEOUT, "10m")
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
  }

  /** Makes {@code last} an owner of {@code first} too. */
  private void closeRing(TestNamespace ns, HasMetadata first, HasMetadata last) {
    Widgets.widget(client, ns.name(), first.getMetadata().getName()).edit(o -> {
      o.getMetadata().getOwnerReferences().add(Widgets.ownerReference(last));
      return o;
    });
  }

  private void awaitBeingDeleted(HasMetadata object) {
    org.awaitility.Awaitility.await(object.getMetadata().getName() + " being deleted").atMost(GONE_DEADLINE)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, object);
          return now != null && now.getMetadata().getDeletionTimestamp() != null;
        });
  }
}
