package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What keeps a dependent besides the owner being deleted: a reference Kubernetes treats as
 * invalid (case 4), and a co-owner that is alive but doomed by another cascade at a Release deadline
 * (case 6). syncgc never deletes what the built-in collector would keep.
 */
class KeepersTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer().deadline(NOW.plusSeconds(600));
  }

  private List<Step> plan(DependencyGraph g, String owner, OnTimeout onTimeout) {
    return Plans.plan(planner, g, g.get(owner), Propagation.SYNCHRONOUS, Optional.empty(), onTimeout, NOW, uid -> null,
        List.of(), d -> 0);
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return plan(g, owner, OnTimeout.RELEASE);
  }

  private static Set<String> deleted(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DeleteDependent)
        .map(s -> ((Step.DeleteDependent) s).dependent().uid()).collect(Collectors.toSet());
  }

  private static Set<String> dropped(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DropReference)
        .map(s -> ((Step.DropReference) s).dependent().uid()).collect(Collectors.toSet());
  }

  // case 4: a reference Kubernetes treats as invalid keeps

  @Test
  void aClusterScopedDependentThatAlsoNamesANamespacedOwnerSurvivesItsClusterScopedOwner() {
    // the built-in collector never collects d: its reference to the namespaced ns-owner is unresolvable
    DependencyGraph g = graphOf(owner("x").clusterScoped().build(), obj("ns-owner").build(),
        obj("d").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true), link("ns-owner", Scope.NAMESPACED, true))
            .build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), "deletes an object the built-in collector would keep: " + steps);
    assertEquals(Set.of("d"), dropped(steps), "only the reference to x is removed");
    Step.Wait wait = assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
    assertEquals(0, wait.remaining(), "x does not wait for d");
  }

  /**
   * A ring member that carries an invalid reference is never deleted by a cascade, so it keeps the
   * ring it owns into like an owner outside would (DeletionRunPropertiesTest seed -4612102206738444864:
   * the invalid reference named a member of the ring itself, was skipped as "inside the ring", and
   * the members it keeps were deleted while it stayed).
   */
  @Test
  void aRingMemberWhoseInvalidReferenceNamesAnotherMemberKeepsTheRing() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("a").ownedBy(link("x", Scope.NAMESPACED, true), link("c", Scope.CLUSTER, true)).build(),
        obj("b").ownedBy(link("x", Scope.NAMESPACED, true), link("a", Scope.NAMESPACED, true)).build(),
        // cluster-scoped: its reference to b (cluster-scoped link) is valid, the one to a is not
        obj("c").clusterScoped().ownedBy(link("b", Scope.CLUSTER, true), link("a", Scope.NAMESPACED, true)).build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), "deletes members c keeps, while c stays for ever: " + steps);
    assertEquals(Set.of("a", "b"), dropped(steps));
  }

  @Test
  void aClusterScopedDependentNamingANamespacedOwnerThatDoesNotExistSurvivesToo() {
    DependencyGraph g = graphOf(owner("x").clusterScoped().build(),
        obj("d").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true), link("never", Scope.NAMESPACED, true))
            .build());

    assertEquals(Set.of(), deleted(plan(g, "x")));
    assertEquals(Set.of("d"), dropped(plan(g, "x")));
  }

  @Test
  void aDependentWhoseOtherOwnerLivesInAnotherNamespaceSurvives() {
    DependencyGraph g = graphOf(owner("x").build(), obj("keeper").namespace("elsewhere").build(),
        obj("d").ownedBy("x", "keeper").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), "deletes an object carrying an invalid reference: " + steps);
    assertEquals(Set.of("d"), dropped(steps));
  }

  @Test
  void anInvalidReferenceKeepsAtTheReleaseDeadlineToo() {
    DependencyGraph g = graphOf(obj("x").clusterScoped().deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("d").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true), link("never", Scope.NAMESPACED, true))
            .build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), steps.toString());
    assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
  }

  @Test
  void anObjectCarryingAnInvalidReferenceIsNotDoomedByTheCascadeAboveIt() {
    // a's cascade keeps b (b names an owner in another namespace), so b keeps d when c goes
    DependencyGraph g = graphOf(owner("a").build(), obj("elsewhere-owner").namespace("elsewhere").build(),
        obj("b").ownedBy("a", "elsewhere-owner").build(), owner("c").build(), obj("d").ownedBy("b", "c").build());

    List<Step> steps = plan(g, "c");

    assertEquals(Set.of("d"), dropped(steps), "b is not doomed, so it keeps d: " + steps);
    assertEquals(Set.of(), deleted(steps));
  }

  @Test
  void aRingMemberCarryingAnInvalidReferenceKeepsTheRing() {
    // r → x, x ↔ y; y (cluster-scoped) also names a namespaced owner: the built-in collector keeps y
    DependencyGraph g = graphOf(owner("r").clusterScoped().build(),
        obj("x").clusterScoped().ownedBy(link("r", Scope.CLUSTER, true), link("y", Scope.CLUSTER, true)).build(),
        obj("y").clusterScoped().ownedBy(link("x", Scope.CLUSTER, true), link("ns-owner", Scope.NAMESPACED, true))
            .build());

    List<Step> steps = plan(g, "r");

    assertEquals(Set.of(), deleted(steps), steps.toString());
    assertEquals(Set.of("x"), dropped(steps));
  }

  // case 6: at a Release deadline a dependent whose co-owner is alive is not deleted

  @Test
  void atAReleaseDeadlineADependentWhoseCoOwnerIsAliveButDoomedIsLeftToItsCoOwner() {
    // b is alive, under a's cascade (doomed); x's deadline passed: d goes with b, not with x
    DependencyGraph g = graphOf(owner("a").build(), obj("b").ownedBy("a").build(),
        obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("d").ownedBy("x", "b").build(), obj("alone").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("alone"), deleted(steps), "deletes a dependent whose co-owner b is alive: " + steps);
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
    assertEquals(Outcome.TIMED_OUT, release.outcome());
  }

  @Test
  void pastAKeepDeadlineADependentWhoseCoOwnerIsDoomedIsWaitedFor() {
    DependencyGraph g = graphOf(owner("a").build(), obj("b").ownedBy("a").build(),
        obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("d").ownedBy("x", "b").build());

    List<Step> steps = plan(g, "x", OnTimeout.KEEP);

    assertEquals(Set.of(), deleted(steps), steps.toString());
    assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
  }
  // A co-owner is solid as the built-in collector's classifyReferences judges it

  /**
   * A co-owner being deleted but held by another controller's finalizer is solid while it exists (its
   * controller may still need the dependent): the built-in collector, asked for foreground deletion of
   * x, removes only the reference to x and keeps d until y is gone.
   */
  @Test
  void aCoOwnerHeldByAForeignFinalizerKeepsTheDependent() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").deleting().finalizers("example.com/cleanup").build(),
        obj("d").ownedBy("x", "y").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), "deletes what the built-in collector keeps: " + steps);
    assertEquals(Set.of("d"), dropped(steps));
  }

  /** One being orphaned (kubectl delete --cascade=orphan) keeps its dependents for good. */
  @Test
  void aCoOwnerBeingOrphanedKeepsTheDependent() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").deleting().finalizers("orphan").build(),
        obj("d").ownedBy("x", "y").build());

    assertEquals(Set.of("d"), dropped(plan(g, "x")));
  }

  /** A Pod-like co-owner waiting out its grace period is there: solid. */
  @Test
  void aCoOwnerInItsGracePeriodKeepsTheDependent() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").deleting().gracePeriod(30).build(),
        obj("d").ownedBy("x", "y").build());

    assertEquals(Set.of("d"), dropped(plan(g, "x")));
  }

  /** syncgc's own Orphan hand-over: the co-owner carries syncgc's finalizer but its deletion does not cascade. */
  @Test
  void aCoOwnerUnderAnOrphanDeletionOfSyncgcKeepsTheDependent() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("y").deleting().syncFinalizer().annotate("syncgc.dev/propagation", "Orphan").build(),
        obj("d").ownedBy("x", "y").build());

    assertEquals(Set.of("d"), dropped(plan(g, "x")));
  }

  /** Co-owners whose own deletion deletes their dependents are not solid: foreground, or syncgc cascading. */
  @Test
  void aCoOwnerInForegroundDeletionOrASynchronousCascadeDoesNotKeepTheDependent() {
    DependencyGraph g = graphOf(owner("x").build(),
        obj("fg").deleting().finalizers("foregroundDeletion").build(),
        obj("sync").deleting().syncFinalizer().annotate("syncgc.dev/propagation", "Synchronous").build(),
        obj("d1").ownedBy("x", "fg").build(), obj("d2").ownedBy("x", "sync").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("d1", "d2"), deleted(steps));
    assertEquals(Set.of(), dropped(steps));
  }

  /** The same at a Release deadline: what is left is deleted only where the built-in collector would. */
  @Test
  void atAReleaseDeadlineADependentOfAHeldCoOwnerIsNotDeleted() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("y").deleting().finalizers("example.com/cleanup").build(),
        obj("d").ownedBy("x", "y").deleting().finalizers("example.com/slow").build(),
        obj("e").ownedBy("x", "y").build());

    assertEquals(Set.of(), deleted(plan(g, "x")));
  }
}
