package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ownership cycles: released as a unit as soon as nothing outside them is waited for, never by the
 * deadline (every member carries {@code syncgc.dev/timeout: 10m}), and named in a DependencyCycle Event.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class CyclesIT {
  /** Far shorter than the 10 minutes of the members' timeout: no deadline can be what releases them. */
  private static final Duration GONE_DEADLINE = Duration.ofSeconds(60);
  private static final String LONG_TIMEOUT = "10m";
  /** A foreign finalizer that holds an object until the test lets it go. */
  private static final String HOLD = "example.com/hold";

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void cycleOfTwoIsDeletedWithoutWaitingForTheDeadlineAndReportedWithItsPath(TestNamespace ns) {
    GenericKubernetesResource a = syncOwner(ns, "a").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource b = syncOwner(ns, "b").ownedBy(a)
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
    addOwnerReference(ns, a, b);

    Widgets.widget(client, ns.name(), "a").delete();

    ObjectAwaits.awaitAllGone(client, List.of(a, b), GONE_DEADLINE);
    assertCycleEvent(a, ns, List.of("a", "b"));
    assertCycleEvent(b, ns, List.of("a", "b"));
  }

  @Test
  void cycleOfThreeIsDeletedWithoutWaitingForTheDeadlineAndReportedWithItsPath(TestNamespace ns) {
    GenericKubernetesResource a = syncOwner(ns, "a").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource b = syncOwner(ns, "b").ownedBy(a).apply();
    GenericKubernetesResource c = syncOwner(ns, "c").ownedBy(b).apply();
    ObjectAwaits.awaitSyncgcFinalizer(client, b, SETUP_DEADLINE);
    ObjectAwaits.awaitSyncgcFinalizer(client, c, SETUP_DEADLINE);
    addOwnerReference(ns, a, c);

    Widgets.widget(client, ns.name(), "a").delete();

    ObjectAwaits.awaitAllGone(client, List.of(a, b, c), GONE_DEADLINE);
    for (HasMetadata member : List.of(a, b, c)) {
      assertCycleEvent(member, ns, List.of("a", "b", "c"));
    }
  }

  /**
   * A ring inside a larger graph: c1 and c2 own each other; c1 owns x, which owns x1 and x2; c2 owns
   * y, held by a foreign finalizer. Deleting c1 deletes the trees under the ring first; the ring waits
   * for y and is released as a unit as soon as y is let go. The Event names the ring alone.
   *
   * <p>The ring is entered by deleting one of its members; a cascade from an owner above a ring is
   * the next test.
   */
  @Test
  void cycleInsideLargerGraphIsReleasedAsUnitOnceEverythingBelowItIsGone(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource c1 = syncOwner(ns, "c1").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource c2 = syncOwner(ns, "c2").ownedBy(c1).apply();
      GenericKubernetesResource x = Widgets.create(client, ns.name(), "x").ownedBy(c1).apply();
      GenericKubernetesResource x1 = Widgets.create(client, ns.name(), "x1").ownedBy(x).apply();
      GenericKubernetesResource x2 = Widgets.create(client, ns.name(), "x2").ownedBy(x).apply();
      GenericKubernetesResource y = Widgets.create(client, ns.name(), "y").ownedBy(c2)
          .finalizer(HOLD).apply();
      ObjectAwaits.awaitSyncgcFinalizer(client, c2, SETUP_DEADLINE);
      addOwnerReference(ns, c1, c2);
      List<GenericKubernetesResource> below = List.of(x, x1, x2, y);
      try {
        Widgets.widget(client, ns.name(), "c1").delete();

        deletions.awaitDeleted(GONE_DEADLINE, List.of(x, x1, x2));
        awaitBeingDeleted(y);
        for (HasMetadata member : List.of(c1, c2)) {
          assertTrue(ObjectAwaits.exists(client, member), member.getMetadata().getName()
              + " still waits for y");
        }
      } finally {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "y"), HOLD);
      }

      deletions.awaitDeleted(GONE_DEADLINE, List.of(c1, c2, y));
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      List<String> order = deletions.names();
      for (HasMetadata o : below) {
        String name = o.getMetadata().getName();
        assertTrue(order.indexOf(name) < order.indexOf("c1") && order.indexOf(name) < order.indexOf("c2"),
            name + " deleted before the ring: " + order);
      }
      assertTrue(order.indexOf("x1") < order.indexOf("x") && order.indexOf("x2") < order.indexOf("x"),
          "leaves first: " + order);
      assertCycleEvent(c1, ns, List.of("c1", "c2"));
      assertCycleEvent(c2, ns, List.of("c1", "c2"));
    }
  }

  /**
   * A ring kept alive only by itself goes with the tree above it (SPEC step 2): root owns leaf and
   * x, x owns c1, c1 and c2 own each other. c2 is a solid owner of c1, but only from inside c1's
   * ring, and the ring has no solid owner outside it: both are deleted, after what they own and
   * before x, and released as a unit; root goes last. (The built-in collector leaves such a ring
   * alive forever; so did syncgc before.)
   */
  @Test
  void ringUnderDeletedTreeIsDeletedWithItAsAUnitAndTheOwnerGoesLast(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource root = syncOwner(ns, "root").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource leaf = Widgets.create(client, ns.name(), "leaf").ownedBy(root).apply();
      GenericKubernetesResource x = syncOwner(ns, "x").ownedBy(root).apply();
      GenericKubernetesResource c1 = syncOwner(ns, "c1").ownedBy(x).apply();
      GenericKubernetesResource c2 = syncOwner(ns, "c2").ownedBy(c1).apply();
      GenericKubernetesResource below = Widgets.create(client, ns.name(), "below").ownedBy(c2).apply();
      for (HasMetadata o : List.of(x, c1, c2)) {
        ObjectAwaits.awaitSyncgcFinalizer(client, o, SETUP_DEADLINE);
      }
      addOwnerReference(ns, c1, c2);

      Widgets.widget(client, ns.name(), "root").delete();

      deletions.awaitDeleted(GONE_DEADLINE, List.of(root, leaf, x, c1, c2, below));
      deletions.checkWatches();
      deletions.assertBefore("below", "c1");
      deletions.assertBefore("below", "c2");
      deletions.assertBefore("c1", "x");
      deletions.assertBefore("c2", "x");
      deletions.assertBefore("x", "root");
      deletions.assertBefore("leaf", "root");
      assertCycleEvent(c1, ns, List.of("c1", "c2"));
    }
  }

  /**
   * The same ring, with a solid owner outside it (keeper owns c2): the ring is kept, so it survives;
   * only x's reference is removed (as the built-in collector does).
   */
  @Test
  void ringWithASolidOwnerOutsideSurvivesTheDeletedTreeAndLosesOnlyItsReference(TestNamespace ns) {
    GenericKubernetesResource keeper = Widgets.create(client, ns.name(), "keeper").apply();
    GenericKubernetesResource root = syncOwner(ns, "root").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource x = syncOwner(ns, "x").ownedBy(root).apply();
    GenericKubernetesResource c1 = syncOwner(ns, "c1").ownedBy(x).apply();
    GenericKubernetesResource c2 = syncOwner(ns, "c2").ownedBy(c1).ownedBy(keeper).apply();
    for (HasMetadata o : List.of(x, c1, c2)) {
      ObjectAwaits.awaitSyncgcFinalizer(client, o, SETUP_DEADLINE);
    }
    addOwnerReference(ns, c1, c2);

    Widgets.widget(client, ns.name(), "root").delete();

    ObjectAwaits.awaitAllGone(client, List.of(root, x), GONE_DEADLINE);
    for (HasMetadata member : List.of(c1, c2)) {
      GenericKubernetesResource now = ObjectAwaits.current(client, member);
      assertTrue(now != null && now.getMetadata().getDeletionTimestamp() == null,
          member.getMetadata().getName() + " survives, not being deleted: " + now);
    }
    assertEquals(List.of(c2.getMetadata().getUid()), ownerUids(ObjectAwaits.current(client, c1)),
        "c1 keeps only its reference to c2");
    assertEquals(List.of(c1.getMetadata().getUid(), keeper.getMetadata().getUid()),
        ownerUids(ObjectAwaits.current(client, c2)), "c2 keeps its references");
  }

  private void awaitBeingDeleted(HasMetadata object) {
    await(object.getMetadata().getName() + " being deleted").atMost(GONE_DEADLINE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, object);
          return now != null && now.getMetadata().getDeletionTimestamp() != null;
        });
  }

  private static List<String> ownerUids(HasMetadata object) {
    return object.getMetadata().getOwnerReferences().stream().map(r -> r.getUid())
        .collect(Collectors.toList());
  }

  private Widgets.Builder syncOwner(TestNamespace ns, String name) {
    return Widgets.create(client, ns.name(), name).synchronous().annotate(TIMEOUT, LONG_TIMEOUT);
  }

  /** Makes {@code owner} an owner of {@code dependent} too (closing the cycle). */
  private void addOwnerReference(TestNamespace ns, HasMetadata dependent, HasMetadata owner) {
    Widgets.widget(client, ns.name(), dependent.getMetadata().getName()).edit(w -> {
      w.getMetadata().getOwnerReferences().add(Widgets.ownerReference(owner));
      return w;
    });
  }

  /**
   * A DependencyCycle Warning Event on {@code member} names the cycle's exact path: the members in
   * ownership order (each owns the next), closed by the first, starting at any member.
   */
  private void assertCycleEvent(HasMetadata member, TestNamespace ns, List<String> cycle) {
    List<String> paths = rotations(cycle).stream()
        .map(names -> names.stream().map(n -> "Widget/" + ns.name() + "/" + n)
            .collect(Collectors.joining(" -> ")))
        .collect(Collectors.toList());
    Events.awaitMatching(client, member, "Warning", "DependencyCycle", "naming one of " + paths,
        message -> paths.stream().anyMatch(message::contains));
  }

  /** Every closed rotation of a cycle: [a, b] gives [a, b, a] and [b, a, b]. */
  private static List<List<String>> rotations(List<String> cycle) {
    List<List<String>> result = new ArrayList<>();
    for (int start = 0; start < cycle.size(); start++) {
      List<String> path = new ArrayList<>();
      for (int i = 0; i <= cycle.size(); i++) {
        path.add(cycle.get((start + i) % cycle.size()));
      }
      result.add(path);
    }
    return result;
  }
}
