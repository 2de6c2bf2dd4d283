package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Keep one dependent": a dependent carrying {@code syncgc.dev/keep: "true"} (an invalid value
 * counts as true), or kept by the policy deciding for it, survives every syncgc cascade through it: its
 * reference to the owner is removed, nothing below it goes through it, and the owner does not wait.
 */
class KeepTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer().deadline(NOW.plusSeconds(600));
  }

  private static TestObjects.Builder kept(String uid) {
    return obj(uid).annotate(Names.KEEP, "true");
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return Plans.plan(planner, g, g.get(owner), Propagation.SYNCHRONOUS, Optional.empty(), NOW, uid -> null, List.of());
  }

  private static Set<String> deleted(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DeleteDependent)
        .map(s -> ((Step.DeleteDependent) s).dependent().uid()).collect(Collectors.toSet());
  }

  /** The dependents whose reference to the owner is removed, and whether each is kept itself. */
  private static Map<String, Boolean> dropped(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DropReference).map(s -> (Step.DropReference) s)
        .collect(Collectors.toMap(s -> s.dependent().uid(), Step.DropReference::kept));
  }

  private static Step.Wait waitOf(List<Step> steps) {
    return assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
  }

  @Test
  void aKeptDependentLosesOnlyItsReferenceAndTheOwnerDoesNotWaitForIt() {
    DependencyGraph g = graphOf(owner("x").build(), kept("k").ownedBy("x").build(), obj("d").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("d"), deleted(steps));
    assertEquals(Map.of("k", true), dropped(steps));
    assertEquals(1, waitOf(steps).remaining(), "x waits for d only: " + steps);
  }

  @Test
  void anInvalidValueCountsAsKeepAndFalseIsTheDefault() {
    DependencyGraph g = graphOf(owner("x").build(), obj("bad").annotate(Names.KEEP, "yes").ownedBy("x").build(),
        obj("no").annotate(Names.KEEP, "false").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("no"), deleted(steps));
    assertEquals(Map.of("bad", true), dropped(steps));
  }

  @Test
  void aKeptDependentWithDependentsOfItsOwnIsNeitherFinalizedNorDeleted() {
    DependencyGraph g = graphOf(owner("x").build(), kept("k").ownedBy("x").build(), obj("c").ownedBy("k").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps));
    assertEquals(Map.of("k", true), dropped(steps));
    assertEquals(0, waitOf(steps).remaining());
  }

  @Test
  void aKeptDependentInAHigherWaveHoldsNoLowerWaveBack() {
    DependencyGraph g = graphOf(owner("x").build(), kept("k").annotate(Names.DELETION_WAVE, "5").ownedBy("x").build(),
        obj("d").ownedBy("x").build());

    assertEquals(Set.of("d"), deleted(plan(g, "x")));
  }

  @Test
  void aKeptRingMemberKeepsItsRingAsASolidOwnerOutsideWould() {
    // x → a, a ↔ b: without the keep the ring is garbage and a is deleted (finalized first)
    DependencyGraph g = graphOf(owner("x").build(), obj("a").ownedBy("x", "b").build(), kept("b").ownedBy("a").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps));
    assertEquals(Map.of("a", false), dropped(steps), "a is kept by its ring, b");
  }

  @Test
  void aKeptCoOwnerUnderTheSameCascadeKeepsTheSharedDependentInsteadOfBeingDoomed() {
    // x → k (kept), x → d, k → d: k stays, so it is a solid owner of d, not one the cascade deletes
    DependencyGraph g = graphOf(owner("x").build(), kept("k").ownedBy("x").build(), obj("d").ownedBy("x", "k").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps));
    assertEquals(Map.of("k", true, "d", false), dropped(steps));
    assertEquals(0, waitOf(steps).remaining(), steps.toString());
  }

  @Test
  void atAReleaseDeadlineAKeptDependentLosesItsReferenceAndIsNeitherDeletedNorLeftBehind() {
    DependencyGraph g = graphOf(obj("x").deleting().syncFinalizer().deadline(NOW.minusSeconds(1)).build(),
        kept("k").ownedBy("x").build(), kept("refused").ownedBy("x").build(), obj("d").ownedBy("x").build());
    Failures failures = new Failures() {
      @Override
      public String why(String uid) {
        return uid.equals("refused") ? "refused PATCH: HTTP 422: denied" : null;
      }

      @Override
      public boolean since(String uid, Instant at) {
        return uid.equals("refused");
      }
    };

    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.SYNCHRONOUS, Optional.empty(), NOW, failures,
        List.of());

    assertEquals(Set.of("d"), deleted(steps));
    assertEquals(Map.of("k", true), dropped(steps), "a refused reference removal does not hold x past its deadline");
    Step.Release release = assertInstanceOf(Step.Release.class, steps.get(steps.size() - 1));
    assertEquals(List.of(), release.leftBehind(), "a kept dependent is never left behind to be deleted later");
  }

  @Test
  void aPolicysKeepKeepsAndTheAnnotationWinsOverIt() {
    DependencyGraph g = graphOf(owner("x").build(), obj("p").ownedBy("x").build(),
        obj("no").annotate(Names.KEEP, "false").ownedBy("x").build());
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.KEEP, true);
    Function<ObjectMetadata, SettingsInForce> inForce = o -> SettingsInForce.of(o,
        DeletionSettings.fromAnnotations(o.annotations()).orElse(policy.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS)),
        Optional.empty());

    List<Step> steps = planner.plan(g, g.get("x"), Plans.synchronous(), NOW, uid -> null, List.of(), inForce);

    assertEquals(Set.of("no"), deleted(steps));
    assertEquals(Map.of("p", true), dropped(steps));
  }

  @Test
  void aDeleteIsNotSentOnceTheDependentIsKept() {
    DependencyGraph g = graphOf(owner("x").build(), kept("k").ownedBy("x").build());

    String why = new SendCheck(g, SettingsInForce::ofAnnotations).dependentKept(g.get("x"), g.get("k"));

    assertNotNull(why);
    assertTrue(why.contains(Names.KEEP), why);
  }

  @Test
  void aWholeDeletionLeavesTheKeptDependentAndWhatItOwnsWithoutTheReferenceAndTheOwnerGone() {
    List<ObjectMetadata> world = List.of(obj("x").syncFinalizer().build(), kept("k").ownedBy("x").build(),
        obj("c").ownedBy("k").build(), obj("d").ownedBy("x").build(), obj("e").ownedBy("d").build());
    DeletionSettings synchronous = DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS);
    DeletionRun run = new DeletionRun(planner, TestObjects.graph(), world,
        o -> DeletionSettings.fromAnnotations(o.annotations()).orElse(synchronous), NOW, new DeletionRun.Listener() {});

    run.delete("x");
    assertTrue(run.run(100), "settles");

    assertEquals(Set.of("x", "d", "e"), Set.copyOf(run.removed()));
    assertEquals(List.of(), run.objects().get("k").owners(), "k is left without owners");
    assertEquals(List.of("k"), run.objects().get("c").owners().stream().map(l -> l.uid()).toList());
  }

  @Test
  void aKeptUserStaysSoWhatItUsesIsHeldEvenWhenTheyUseEachOther() {
    // k and u use each other: without the keep they would go as a unit; k stays, so u is in use
    DependencyGraph g = graphOf(owner("x").build(), kept("k").uses("widget/u").ownedBy("x").build(),
        obj("u").uses("widget/k").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of(), deleted(steps), steps.toString());
    assertEquals(Map.of("k", true), dropped(steps));
  }
}
