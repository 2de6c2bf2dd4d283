package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** SPEC "Synchronous deletion" step 2: an owner in the dependent's own ring, and rings released as units. */
class RingRuleTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer().deadline(NOW.plusSeconds(600));
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return Plans.plan(planner, g, g.get(owner), Propagation.SYNCHRONOUS, Optional.empty(), NOW, uid -> null, List.of());
  }

  private static Map<String, Boolean> deleted(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DeleteDependent).map(s -> (Step.DeleteDependent) s)
        .collect(Collectors.toMap(s -> s.dependent().uid(), Step.DeleteDependent::finalizeFirst));
  }

  private static Set<String> dropped(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DropReference)
        .map(s -> ((Step.DropReference) s).dependent().uid()).collect(Collectors.toSet());
  }

  @Test
  void aRingKeptAliveOnlyByItselfIsDeletedWithItsOwnerFinalizedFirst() {
    // r → x, x → y → z → x
    DependencyGraph g = graphOf(owner("r").build(), obj("x").ownedBy("r", "z").build(),
        obj("y").ownedBy("x").build(), obj("z").ownedBy("y").build());

    List<Step> steps = plan(g, "r");

    assertEquals(Map.of("x", true), deleted(steps));
    assertEquals(Set.of(), dropped(steps));
  }

  @Test
  void aRingWithASolidOwnerOutsideSurvivesAndLosesOnlyTheReferenceToTheDeletedOwner() {
    DependencyGraph g = graphOf(owner("r").build(), obj("s").build(), obj("x").ownedBy("r", "z").build(),
        obj("y").ownedBy("x", "s").build(), obj("z").ownedBy("y").build());

    List<Step> steps = plan(g, "r");

    assertEquals(Set.of("x"), dropped(steps));
    assertEquals(Map.of(), deleted(steps));
  }

  @Test
  void supportFromOutsideDoesNotFlowThroughAMemberBeingDeleted() {
    // ring x → y → w → v → x; s keeps y, but the ring reaches v (x's other owner) only through w,
    // which is being deleted
    DependencyGraph g = graphOf(owner("r").build(), obj("s").build(), obj("x").ownedBy("r", "v").build(),
        obj("y").ownedBy("x", "s").build(), obj("w").ownedBy("y").deleting().finalizers("example.com/hold").build(),
        obj("v").ownedBy("w").build());

    assertEquals(Map.of("x", true), deleted(plan(g, "r")));
  }

  @Test
  void ringsInsideRingsAreOneRing() {
    // x ↔ y and y ↔ z: one strongly connected component; s keeps z, so the whole ring is kept
    ObjectMetadata s = obj("s").build();
    List<ObjectMetadata> ring = List.of(obj("x").ownedBy("r", "y").build(), obj("y").ownedBy("x", "z").build());
    DependencyGraph kept = graphOf(owner("r").build(), s, ring.get(0), ring.get(1), obj("z").ownedBy("y", "s").build());
    DependencyGraph garbage = graphOf(owner("r").build(), s, ring.get(0), ring.get(1), obj("z").ownedBy("y").build());

    assertEquals(Set.of("x"), dropped(plan(kept, "r")));
    assertEquals(Map.of("x", true), deleted(plan(garbage, "r")));
  }

  @Test
  void aRingReachedThroughADiamondWaitsUntilBothSidesAreBeingDeleted() {
    // r → a, r → b, a → x, b → x, x ↔ y: planning a while b is still alive (doomed by r)
    DependencyGraph g = graphOf(owner("r").build(), owner("a").ownedBy("r").build(), obj("b").ownedBy("r").build(),
        obj("x").ownedBy("a", "b", "y").build(), obj("y").ownedBy("x").build());
    List<Step> early = plan(g, "a");
    assertEquals(Map.of(), deleted(early));
    assertEquals(Set.of(), dropped(early));
    assertInstanceOf(Step.Wait.class, early.get(early.size() - 1));

    g.upsert(owner("b").ownedBy("r").rv(2).build());

    assertEquals(Map.of("x", true), deleted(plan(g, "a")));
  }

  @Test
  void aClusterScopedRingIsDeletedWithItsClusterScopedOwner() {
    DependencyGraph g = graphOf(owner("r").clusterScoped().build(),
        obj("x").clusterScoped().ownedBy(link("r", Scope.CLUSTER, true), link("y", Scope.CLUSTER, true)).build(),
        obj("y").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true)).build(),
        obj("cm").ownedBy(link("y", Scope.CLUSTER, true)).build());

    assertEquals(Map.of("x", true), deleted(plan(g, "r")));
    assertEquals(Map.of("y", true), deleted(plan(graphOf(owner("r").clusterScoped().build(),
        owner("x").clusterScoped().ownedBy(link("r", Scope.CLUSTER, true), link("y", Scope.CLUSTER, true)).build(),
        obj("y").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true)).build(),
        obj("cm").ownedBy(link("y", Scope.CLUSTER, true)).build()), "x")));
  }

  @Test
  void aRingMemberHeldByAnotherControllerIsWaitedForThenTheRingIsReleased() {
    ObjectMetadata x = owner("x").ownedBy("r", "y").build();
    DependencyGraph g = graphOf(owner("r").build(), x,
        owner("y").ownedBy("x").finalizers("example.com/hold").build());
    List<Step> held = plan(g, "x");
    assertInstanceOf(Step.Wait.class, held.get(held.size() - 1));

    g.upsert(owner("y").ownedBy("x").rv(2).build());

    Step.ReleaseRing ring = assertInstanceOf(Step.ReleaseRing.class, plan(g, "x").get(plan(g, "x").size() - 1));
    assertEquals(List.of("y", "x"), ring.members().stream().map(ObjectMetadata::uid).toList(),
        "x, owned from outside the ring, goes last");
    assertEquals(List.of("x", "y", "x"), ring.path().stream().map(ObjectRef::uid).toList());
  }

  @Test
  void aRingWithDependentsOutsideIsNotReleasedBeforeThemAndTheyAreDeletedFirst() {
    DependencyGraph g = graphOf(owner("x").ownedBy("y").build(), owner("y").ownedBy("x").build(),
        obj("leaf").ownedBy("y").build());

    assertEquals(Map.of("leaf", false), deleted(plan(g, "y")));
    assertEquals(List.of(), plan(g, "x").stream().filter(s -> s instanceof Step.ReleaseRing).toList());
  }

  @Test
  void aMemberDeletedByTheUserLeavesTheRestOfAKeptRing() {
    // the user deletes x; s keeps y, so z (owned by y and x) loses only its reference to x
    DependencyGraph g = graphOf(obj("s").build(), owner("x").ownedBy("z").build(),
        obj("y").ownedBy("x", "s").build(), obj("z").ownedBy("y", "x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("y", "z"), dropped(steps));
    assertEquals(Map.of(), deleted(steps));
  }
}
