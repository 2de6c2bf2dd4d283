package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** SPEC "What a deadline does": Release (the default) or Keep. */
class OnTimeoutTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  private List<Step> plan(DependencyGraph g, OnTimeout onTimeout) {
    return Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), onTimeout, NOW, uid -> null,
        List.of(), d -> 0);
  }

  /** The DELETE of a dependent by x's cascade, its deadline passed. */
  private static Step.DeleteDependent deleting(ObjectMetadata d, boolean finalizeFirst) {
    return new Step.DeleteDependent(d, finalizeFirst, Set.of(), new Step.Cascade("x", NOW.minusSeconds(1), null));
  }

  private static DependencyGraph pastDeadline(boolean reported) {
    var x = obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1));
    if (reported) {
      x.annotate(Names.TIMED_OUT, NOW.minusSeconds(1).toString());
    }
    return graphOf(x.build(), obj("held").ownedBy("x").deleting().finalizers("example.com/hold").build(),
        obj("fresh").ownedBy("x").build());
  }

  @Test
  void releaseLetsTheOwnerGoAtTheDeadlineAfterSendingTheRemainingDeletes() {
    List<Step> steps = plan(pastDeadline(false), OnTimeout.RELEASE);

    assertEquals(deleting(pastDeadline(false).get("fresh"), false), steps.get(0),
        "the dependent not yet deleted is deleted now (the one already being deleted is not sent again)");
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(1));
    assertEquals(Outcome.TIMED_OUT, release.outcome());
    assertEquals(2, steps.size());
  }

  private List<Step> plan(DependencyGraph g, Failures failures) {
    return Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), OnTimeout.RELEASE, NOW,
        failures, List.of(), d -> 0);
  }

  /** A failure recorded for {@code uid} at {@code at}. */
  private static Failures failedAt(String uid, Instant at) {
    return new Failures() {
      @Override
      public String why(String u) {
        return u.equals(uid) ? "failed DELETE: HTTP 500" : null;
      }

      @Override
      public Instant at(String u) {
        return u.equals(uid) ? at : null;
      }
    };
  }

  @Test
  void aFailureFromBeforeTheDeadlineNoLongerExcusesADependentItIsTriedAgain() {
    // a 5xx long ago (the dependent never tried since: its wave had not come) must not leave it behind
    DependencyGraph g = pastDeadline(false);
    List<Step> steps = plan(g, failedAt("fresh", NOW.minusSeconds(600)));

    assertEquals(deleting(g.get("fresh"), false), steps.get(0));
    assertEquals(List.of(), assertInstanceOf(Step.Release.class, steps.get(1)).leftBehind());
  }

  @Test
  void aFailureSinceTheDeadlineExcusesTheDependentAndIsLeftBehindForSyncgcToFinish() {
    // tried at the deadline and refused again: the owner goes, the dependent is named as left behind
    // (SPEC: the remaining dependents are still deleted afterwards)
    DependencyGraph g = pastDeadline(false);
    List<Step> steps = plan(g, failedAt("fresh", NOW.minusSeconds(1)));

    assertEquals(1, steps.size(), steps.toString());
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(0));
    assertEquals(List.of(g.get("fresh")), release.leftBehind());
  }

  @Test
  void anOptedInDependentInUseIsMarkedDeletedAtAReleaseDeadlineItsHoldKeepsIt() {
    // its DELETE only marks it (it carries syncgc's finalizer): the hold keeps it until its last user
    // is gone, then it goes (SPEC "In use": a kept used object goes once its last user is gone); one
    // not opted in is left to the built-in collector
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("db").ownedBy("x").syncFinalizer().build(), obj("plain-db").ownedBy("x").build(),
        obj("app").annotate(Names.USES, "widget/db, widget/plain-db").build());

    List<Step> steps = plan(g, OnTimeout.RELEASE);

    assertEquals(List.of("db"), steps.stream().filter(s -> s instanceof Step.DeleteDependent)
        .map(s -> ((Step.DeleteDependent) s).dependent().uid()).toList());
    assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
  }

  @Test
  void aRingLeftUnderAnOwnerReleasedAtItsDeadlineIsDeletedNotLeftToTheBuiltInCollector() {
    // x -> r1 -> r2 -> r1: the built-in collector would only drop r1's reference to x once x is gone
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("r1").ownedBy("x").ownedBy("r2").build(), obj("r2").ownedBy("r1").build(),
        obj("keeper").build(), obj("kept").ownedBy("x").ownedBy("keeper").build());

    List<Step> steps = plan(g, OnTimeout.RELEASE);

    assertEquals(List.of(deleting(g.get("r1"), true)),
        steps.stream().filter(s -> s instanceof Step.DeleteDependent).toList(),
        "the ring's entry is deleted under syncgc's finalizer, so that its members follow; the solidly kept one is not");
    assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
  }

  @Test
  void aDependentAnotherOwnerKeepsLosesItsReferenceAtAReleaseDeadlineToo() {
    // before the deadline its reference is dropped; a deadline that passed first (the API server down,
    // found by the soak) left it to the built-in collector, which never removes it when another owner's
    // kind cannot be resolved (an owner reference of an absent kind keeps the object, and stays)
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        obj("kept").ownedBy("x").ownedBy(TestObjects.link("absent", Scope.UNKNOWN, true)).build());

    List<Step> steps = plan(g, OnTimeout.RELEASE);

    assertEquals(List.of(new Step.DropReference(g.get("kept"), "x")),
        steps.stream().filter(s -> !(s instanceof Step.Release)).toList());
    assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
  }

  @Test
  void aDependentWhoseLastDeleteFailedDoesNotHoldTheOwnerPastItsDeadline() {
    DependencyGraph g = pastDeadline(false);

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), OnTimeout.RELEASE, NOW,
        uid -> uid.equals("fresh") ? "403 forbidden" : null, List.of(), d -> 0);

    assertEquals(1, steps.size(), steps.toString());
    assertInstanceOf(Step.Release.class, steps.get(0));
  }

  @Test
  void keepReportsTheTimeoutOnceThenGoesOnDeletingAndWaiting() {
    List<Step> steps = plan(pastDeadline(false), OnTimeout.KEEP);

    Step.TimedOut timedOut = assertInstanceOf(Step.TimedOut.class, steps.get(0));
    assertEquals(2, timedOut.remaining().size());
    assertEquals(deleting(pastDeadline(false).get("fresh"), false), steps.get(1));
    Step.Wait wait = assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
    assertEquals(Instant.MAX, wait.deadline(), "no deadline left to look again at");
    assertEquals(2, wait.remaining());
  }

  @Test
  void keepDoesNotReportAgainOnceMarked() {
    List<Step> steps = plan(pastDeadline(true), OnTimeout.KEEP);

    assertEquals(List.of(), steps.stream().filter(s -> s instanceof Step.TimedOut).toList());
    assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
  }

  @Test
  void aKeptOwnerGoesAsSoonAsItsDependentsAreGone() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1))
        .annotate(Names.TIMED_OUT, NOW.toString()).build());

    assertEquals(List.of(new Step.Release(Outcome.COMPLETED, List.of())), plan(g, OnTimeout.KEEP));
  }

  @Test
  void switchingAKeptOwnerToReleaseLetsItGo() {
    List<Step> steps = plan(pastDeadline(true), OnTimeout.RELEASE);
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
    assertEquals(Outcome.TIMED_OUT, release.outcome());
  }
}
