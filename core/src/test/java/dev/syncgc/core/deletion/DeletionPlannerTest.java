package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DeletionPlannerTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private static final Instant DEADLINE = NOW.plusSeconds(600);
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  /** An owner marked as deleted, its deletion already started (deadline recorded). */
  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer().deadline(DEADLINE);
  }

  private List<Step> plan(DependencyGraph g, String owner, Propagation p) {
    return Plans.plan(planner, g, g.get(owner), p, Optional.empty(), NOW, uid -> null, List.of());
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return plan(g, owner, Propagation.SYNCHRONOUS);
  }

  private static <S extends Step> List<S> steps(List<Step> steps, Class<S> type) {
    return steps.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static Set<String> deleted(List<Step> steps) {
    return steps(steps, Step.DeleteDependent.class).stream()
        .map(s -> s.dependent().uid()).collect(Collectors.toSet());
  }

  private static Set<String> dropped(List<Step> steps) {
    return steps(steps, Step.DropReference.class).stream()
        .map(s -> s.dependent().uid()).collect(Collectors.toSet());
  }

  private static Step last(List<Step> steps) {
    return steps.get(steps.size() - 1);
  }

  @Test
  void everyOwnersDeadlineIsItsOwnHoweverManyAreRead() {
    // more owners than the parsed deadlines kept, each read twice: a hit returns the text's own instant
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 20_000; i++) {
        Instant deadline = base.plusNanos(i * 1_001L);
        assertEquals(deadline, DeletionPlanner.deadlineOf(obj("o" + i).deadline(deadline).build()));
      }
    }
    assertEquals(null, DeletionPlanner.deadlineOf(obj("none").build()));
  }

  @Test
  void orphanFinalizerReleasesAsOrphanedAndTouchesNothing() {
    DependencyGraph g = graphOf(
        owner("x").finalizers(Names.ORPHAN_FINALIZER).build(), obj("d").ownedBy("x").build());

    assertEquals(List.of(new Step.Release(Outcome.ORPHANED, List.of())), plan(g, "x"));
  }

  @Test
  void backgroundOnlyReleases() {
    DependencyGraph g = graphOf(owner("x").build(), obj("d").ownedBy("x").build());

    assertEquals(List.of(new Step.Release(Outcome.HANDED_OVER, List.of())), plan(g, "x", Propagation.BACKGROUND));
  }

  @Test
  void orphanHandsEveryDependentToTheApiServersOrphaningWhateverSyncgcSees() {
    // syncgc cannot remove references from kinds and namespaces it does not see
    // (the built-in collector then deleted them), so the API server's orphaning does it for all
    DependencyGraph g = graphOf(owner("x").build(),
        obj("d1").ownedBy("x").build(),
        obj("d2").ownedBy("x", "other").build(),
        obj("untracked").ownedByUntracked("x").build());

    assertEquals(List.of(new Step.HandToOrphaning(null)), plan(g, "x", Propagation.ORPHAN));
    assertEquals(List.of(new Step.HandToOrphaning(null)), plan(graphOf(owner("x").build()), "x", Propagation.ORPHAN));
  }

  @Test
  void anOrphanOwnerWhoseGracePeriodRunsWaitsForItThenIsHandedOverWithGracePeriodZero() {
    // while a graceful deletion is pending (a Pod terminating) the API server changes no finalizer
    Instant until = NOW.plusSeconds(30);
    DependencyGraph g = graphOf(owner("x").deletedAt(until).gracePeriod(30).build(), obj("d").ownedBy("x").build());

    List<Step> waiting = plan(g, "x", Propagation.ORPHAN);
    assertEquals(1, waiting.size(), "nothing else while it runs: " + waiting);
    Step.Wait wait = assertInstanceOf(Step.Wait.class, waiting.get(0));
    assertEquals(until, wait.deadline(), "looked at again when it has run out");
    assertTrue(wait.blockers().get(0).toString().contains("grace period"), wait.message(false));

    List<Step> after = Plans.plan(planner, g, g.get("x"), Propagation.ORPHAN, Optional.empty(), until, uid -> null,
        List.of());
    assertEquals(List.of(new Step.HandToOrphaning(0L)), after, "as the kubelet does once it has run out");
  }

  @Test
  void orphanIsNotHeldByAKindThatCannotBeListed() {
    DependencyGraph g = graphOf(owner("x").build());

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.ORPHAN, Optional.empty(), NOW, uid -> null,
        List.of(Blocker.unverified("cannot list Gadget: forbidden")));

    assertEquals(List.of(new Step.HandToOrphaning(null)), steps);
  }

  @Test
  void onceTheApiServerAddedTheOrphanFinalizerTheOwnerIsLetGo() {
    DependencyGraph g = graphOf(owner("x").finalizers(Names.ORPHAN_FINALIZER).build(), obj("d").ownedBy("x").build());

    assertEquals(List.of(new Step.Release(Outcome.ORPHANED, List.of())), plan(g, "x", Propagation.ORPHAN));
    assertEquals(List.of(new Step.Release(Outcome.ORPHANED, List.of())), plan(g, "x", Propagation.SYNCHRONOUS));
  }

  @Test
  void unverifiedKindHoldsEveryDeletionAndTheReleaseUntilTheDeadline() {
    DependencyGraph g = graphOf(owner("x").build(), obj("d").ownedBy("x").build());
    List<Blocker> unverified = List.of(Blocker.unverified("cannot list Gadget: forbidden"));

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), NOW,
        uid -> null, unverified);
    assertTrue(steps(steps, Step.DeleteDependent.class).isEmpty(), steps.toString());
    Step.Wait wait = assertInstanceOf(Step.Wait.class, last(steps));
    assertEquals(unverified.get(0), wait.blockers().get(0));

    DependencyGraph empty = graphOf(owner("y").deadline(NOW.plusSeconds(60)).build());
    assertInstanceOf(Step.Wait.class, last(Plans.plan(planner, empty, empty.get("y"), Propagation.SYNCHRONOUS,
        Optional.empty(), NOW, uid -> null, unverified)), "no release while unverified");
    Step.Release late = assertInstanceOf(Step.Release.class, last(Plans.plan(planner, empty, empty.get("y"),
        Propagation.SYNCHRONOUS, Optional.empty(), NOW.plus(Duration.ofDays(1)), uid -> null, unverified)));
    assertEquals(Outcome.TIMED_OUT, late.outcome());
  }

  @Test
  void startRecordsDefaultDeadlineFromTransitiveDependentCount() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().build(),
        obj("a").ownedBy("x").build(), obj("b").ownedBy("a").build(), obj("c").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(new Step.Start(NOW.plusSeconds(60 + 3), 3), steps.get(0));
  }

  @Test
  void startRecordsExplicitTimeout() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().build(), obj("a").ownedBy("x").build());

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS,
        Optional.of(Duration.ofMinutes(5)), NOW, uid -> null, List.of());

    assertEquals(new Step.Start(NOW.plusSeconds(300), 1), steps.get(0));
  }

  @Test
  void unparsableDeadlineStartsAgain() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().annotate(Names.DEADLINE, "soon").build());

    assertEquals(new Step.Start(NOW.plusSeconds(60), 0), plan(g, "x").get(0));
  }

  @Test
  void noDependentsReleasesAsCompleted() {
    DependencyGraph g = graphOf(owner("x").build());

    assertEquals(List.of(new Step.Release(Outcome.COMPLETED, List.of())), plan(g, "x"));
  }

  @Test
  void noDependentsAtStartStartsThenReleases() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().build());

    assertEquals(List.of(new Step.Start(NOW.plusSeconds(60), 0), new Step.Release(Outcome.COMPLETED, List.of())),
        plan(g, "x"));
  }

  @Test
  void dependentWithAnotherSolidOwnerLosesReferenceAndSurvives() {
    DependencyGraph g = graphOf(owner("x").build(), obj("keeper").build(),
        obj("d").ownedBy("x", "keeper").build());

    List<Step> steps = plan(g, "x");

    assertEquals(List.of(new Step.DropReference(g.get("d"), "x")), steps(steps, Step.DropReference.class));
    assertEquals(Set.of(), deleted(steps));
  }

  @Test
  void dependentWithUntrackedOwnerLosesReferenceAndSurvives() {
    DependencyGraph g = graphOf(owner("x").build(), obj("d").ownedBy("x").ownedByUntracked("unseen").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("d"), dropped(steps));
    assertEquals(Set.of(), deleted(steps));
  }

  @Test
  void dependentWhoseOtherOwnerIsAbsentOrInACascadingDeletionIsDeleted() {
    DependencyGraph g = graphOf(owner("x").build(), obj("going").deleting().finalizers("foregroundDeletion").build(),
        obj("d1").ownedBy("x", "gone").build(), obj("d2").ownedBy("x", "going").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("d1", "d2"), deleted(steps));
    assertEquals(Set.of(), dropped(steps));
  }

  /** The built-in collector's classifyReferences: an owner being deleted without foregroundDeletion is solid. */
  @Test
  void dependentWhoseOtherOwnerIsBeingDeletedInTheBackgroundSurvivesWhileItExists() {
    DependencyGraph g = graphOf(owner("x").build(), obj("going").deleting().gracePeriod(30).build(),
        obj("d").ownedBy("x", "going").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps));
    assertEquals(Set.of("d"), dropped(steps));
  }

  @Test
  void finalizeFirstIffDependentHasDependentsAndLacksFinalizer() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("leaf").ownedBy("x").build(),
        obj("parent").ownedBy("x").build(), obj("child").ownedBy("parent").build(),
        obj("ready").ownedBy("x").syncFinalizer().build(), obj("child2").ownedBy("ready").build());

    Map<String, Boolean> finalizeFirst = steps(plan(g, "x"), Step.DeleteDependent.class).stream()
        .collect(Collectors.toMap(s -> s.dependent().uid(), Step.DeleteDependent::finalizeFirst));

    assertEquals(Map.of("leaf", false, "parent", true, "ready", false), finalizeFirst);
  }

  @Test
  void dependentsBeingDeletedAreWaitedForWithReasons() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("held").ownedBy("x").deleting().finalizers("example.com/protect").build(),
        obj("pod").ownedBy("x").deleting().gracePeriod(30).build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps));
    Step.Wait wait = assertInstanceOf(Step.Wait.class, last(steps));
    assertEquals(DEADLINE, wait.deadline());
    Map<String, String> why = wait.blockers().stream()
        .collect(Collectors.toMap(b -> b.ref().uid(), Blocker::why));
    assertEquals(Set.of("held", "pod"), why.keySet());
    assertTrue(why.get("held").contains("example.com/protect"), why.get("held"));
    assertTrue(why.get("pod").contains("grace period 30s"), why.get("pod"));
  }

  @Test
  void blockerNamesTheLastFailure() {
    DependencyGraph g = graphOf(owner("x").build(), obj("d").ownedBy("x").build());

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), NOW,
        uid -> uid.equals("d") ? "forbidden: cannot delete widgets" : null, List.of());

    Step.Wait wait = assertInstanceOf(Step.Wait.class, last(steps));
    assertTrue(wait.blockers().get(0).why().contains("forbidden"), wait.blockers().toString());
  }

  @Test
  void pastDeadlineReleasesAsTimedOutNamingAtMostTenBlockers() {
    List<ObjectMetadata> objects = new ArrayList<>();
    objects.add(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build());
    for (int i = 0; i < 12; i++) {
      objects.add(obj("d" + i).ownedBy("x").build());
    }
    DependencyGraph g = graphOf(objects.toArray(ObjectMetadata[]::new));

    List<Step> steps = plan(g, "x");

    assertEquals(13, steps.size(), "the twelve remaining dependents are deleted, then the owner is let go");
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(12));
    assertEquals(Outcome.TIMED_OUT, release.outcome());
    assertEquals(DeletionPlanner.MAX_BLOCKERS_REPORTED, release.remaining().size());
  }

  @Test
  void deadlineExactlyNowIsPast() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW).build(),
        obj("d").ownedBy("x").build());

    Step.Release release = assertInstanceOf(Step.Release.class, last(plan(g, "x")));
    assertEquals(Outcome.TIMED_OUT, release.outcome());
  }

  @Test
  void mutualOwnersBothDeletingAreReleasedAsRing() {
    DependencyGraph g = graphOf(owner("a").ownedBy("b").build(), owner("b").ownedBy("a").build());

    Step.ReleaseRing ring = assertInstanceOf(Step.ReleaseRing.class, last(plan(g, "a")));

    assertEquals(Set.of("a", "b"), ring.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet()));
    assertEquals(List.of("a", "b", "a"), ring.path().stream().map(ObjectRef::uid).toList());
  }

  @Test
  void mutualOwnersNotYetDeletingAreDeletedNotReleased() {
    DependencyGraph g = graphOf(owner("a").ownedBy("b").build(), obj("b").ownedBy("a").build());

    List<Step> steps = plan(g, "a");

    assertEquals(Set.of("b"), deleted(steps));
    assertEquals(List.of(), steps(steps, Step.ReleaseRing.class));
  }

  @Test
  void ringStillWaitingOnOutsideDependentIsNotReleased() {
    DependencyGraph g = graphOf(owner("a").ownedBy("b").build(), owner("b").ownedBy("a").build(),
        obj("c").ownedBy("b").deleting().finalizers("example.com/protect").build());

    List<Step> steps = plan(g, "a");

    assertEquals(List.of(), steps(steps, Step.ReleaseRing.class));
    assertInstanceOf(Step.Wait.class, last(steps));
  }

  /**
   * A member whose dependents in the ring are gone completes by its own plan; so the ring is released
   * farthest from the member owned from outside first, and that member last: otherwise the entry, and
   * its owner after it, went while the rest of the ring was left (the soak, seed
   * -6507660803086475762, round 4).
   */
  @Test
  void aRingIsReleasedFarthestFromItsEntryFirstAndTheEntryLast() {
    // outside -> r0 -> r1 -> r2 -> r3 -> r0, every member being deleted, waiting only for the others
    DependencyGraph g = graphOf(owner("outside").build(),
        owner("r0").ownedBy("outside", "r3").build(),
        owner("r1").ownedBy("r0").build(),
        owner("r2").ownedBy("r1").build(),
        owner("r3").ownedBy("r2").build());

    Step.ReleaseRing ring = assertInstanceOf(Step.ReleaseRing.class, last(plan(g, "r2")));

    assertEquals(List.of("r3", "r2", "r1", "r0"), ring.members().stream().map(ObjectMetadata::uid).toList());
  }

  @Test
  void selfOwnedObjectIsReleasedAsRing() {
    DependencyGraph g = graphOf(owner("x").ownedBy("x").build());

    Step.ReleaseRing ring = assertInstanceOf(Step.ReleaseRing.class, last(plan(g, "x")));

    assertEquals(List.of("x"), ring.members().stream().map(ObjectMetadata::uid).toList());
    assertEquals(List.of("x", "x"), ring.path().stream().map(ObjectRef::uid).toList());
  }

  @Test
  void invalidLinksNeverProduceDeleteDependent() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("unknown").ownedBy(link("x", Scope.UNKNOWN, true)).build(),
        obj("cluster").clusterScoped().ownedBy("x").build(),
        obj("elsewhere").namespace("other").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(List.of(new Step.Release(Outcome.COMPLETED, List.of())), steps);
    assertEquals(new HashSet<>(), deleted(steps));
  }

  @Test
  void ownerOfAnUnservedKindKeepsTheDependentAndOnlyTheReferenceIsDropped() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("d").ownedBy(link("x"), link("ghost", Scope.UNKNOWN, true)).build());
    List<Step> steps = plan(g, "x");
    assertEquals(Set.of("d"), dropped(steps));
    assertEquals(Set.of(), deleted(steps));
  }

  @Test
  void ringMemberThatWillGoByItselfIsNoDeadlockAndIsWaitedFor() {
    // b is held only by another controller's finalizer: it goes when that controller is done
    DependencyGraph g = graphOf(owner("a").ownedBy("b").build(),
        obj("b").ownedBy("a").deleting().finalizers("example.com/hold").build());
    assertEquals(List.of(), steps(plan(g, "a"), Step.ReleaseRing.class));
    assertInstanceOf(Step.Wait.class, last(plan(g, "a")));
  }

  @Test
  void ringMemberUnderForegroundDeletionCountsAsWaiting() {
    DependencyGraph g = graphOf(owner("a").ownedBy("b").build(),
        obj("b").ownedBy("a").deleting().finalizers("foregroundDeletion").build());
    assertEquals(1, steps(plan(g, "a"), Step.ReleaseRing.class).size());
  }

  @Test
  void inADiamondACoOwnerThatTheSameCascadeWillDeleteIsWaitedForNotReleasedFrom() {
    // a is being deleted; c's cascade reaches d while b (doomed by a) is not being deleted yet
    DependencyGraph g = graphOf(owner("a").build(),
        obj("b").ownedBy("a").build(),
        owner("c").ownedBy("a").build(),
        obj("d").ownedBy("b", "c").build());
    List<Step> steps = plan(g, "c");
    assertEquals(Set.of(), dropped(steps));
    assertEquals(Set.of(), deleted(steps));
    assertInstanceOf(Step.Wait.class, last(steps));
  }

  @Test
  void aCoOwnerThatAnOrphaningOwnerKeepsStaysSolid() {
    DependencyGraph g = graphOf(owner("a").annotate(Names.PROPAGATION, "Orphan").build(),
        obj("b").ownedBy("a").build(),
        owner("c").build(),
        obj("d").ownedBy("b", "c").build());
    assertEquals(Set.of("d"), dropped(plan(g, "c")));
  }

  @Test
  void eachObjectsSettingsInForceAreResolvedOncePerPlan() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("leaf").ownedBy("x").build(), obj("sibling").ownedBy("x").build(),
        obj("parent").ownedBy("x").build(), obj("child").ownedBy("parent").build());
    Map<String, Integer> calls = new java.util.HashMap<>();
    SettingsInForce synchronous = Plans.synchronous();

    planner.plan(g, g.get("x"), synchronous, NOW, uid -> null, List.of(), o -> {
      calls.merge(o.uid(), 1, Integer::sum);
      return SettingsInForce.ofAnnotations(o);
    });

    assertEquals(Map.of("leaf", 1, "sibling", 1, "parent", 1), calls);
  }
}
