package dev.syncgc.core.deletion;

import java.util.Optional;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.OnTimeout;
import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** SPEC "Ordered teardown": the highest wave of an owner's dependents first, the next when it is gone. */
class DeletionWavesTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer().deadline(NOW.plusSeconds(600));
  }

  private static TestObjects.Builder wave(TestObjects.Builder b, int wave) {
    return b.annotate(Names.DELETION_WAVE, Integer.toString(wave));
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return Plans.plan(planner, g, g.get(owner), Propagation.SYNCHRONOUS, Optional.empty(), OnTimeout.RELEASE, NOW,
        uid -> null, List.of(), Simulation::wave);
  }

  private static Set<String> deleted(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DeleteDependent)
        .map(s -> ((Step.DeleteDependent) s).dependent().uid()).collect(Collectors.toSet());
  }

  @Test
  void theHighestWaveGoesFirstAndTheWaitNamesIt() {
    DependencyGraph g = graphOf(owner("x").build(), wave(obj("db"), -1).ownedBy("x").build(),
        obj("app").ownedBy("x").build(), obj("app2").ownedBy("x").build(), wave(obj("cr"), 2).ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("cr"), deleted(steps));
    Step.Wait wait = assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
    assertEquals(OptionalInt.of(2), wait.wave());
    assertEquals(4, wait.remaining());
    assertEquals("cr", wait.blockers().get(0).ref().uid(), "the wave being deleted is named first");
  }

  @Test
  void theNextWaveWaitsWhileAHigherOneIsStillBeingDeletedWithWhatIsBelowIt() {
    DependencyGraph g = graphOf(owner("x").build(),
        wave(owner("cr"), 2).ownedBy("x").build(), obj("below").ownedBy("cr").finalizers("example.com/hold").deleting().build(),
        obj("app").ownedBy("x").build());

    assertEquals(Set.of(), deleted(plan(g, "x")));

    g.remove("below");
    g.remove("cr");

    assertEquals(Set.of("app"), deleted(plan(g, "x")));
  }

  @Test
  void negativeWavesGoLastAndWithoutWavesNothingIsNamed() {
    DependencyGraph g = graphOf(owner("x").build(), wave(obj("db"), -5).ownedBy("x").build(), obj("app").ownedBy("x").build());
    assertEquals(Set.of("app"), deleted(plan(g, "x")));

    DependencyGraph plain = graphOf(owner("x").build(), obj("a").ownedBy("x").build(), obj("b").ownedBy("x").build());
    List<Step> steps = plan(plain, "x");
    assertEquals(Set.of("a", "b"), deleted(steps));
    assertEquals(OptionalInt.empty(), ((Step.Wait) steps.get(steps.size() - 1)).wave());
  }

  @Test
  void aHigherWaveDependentKeptByAnotherOwnerHoldsNothingBack() {
    DependencyGraph g = graphOf(owner("x").build(), obj("keeper").build(),
        wave(obj("shared"), 9).ownedBy("x", "keeper").build(), obj("app").ownedBy("x").build());

    List<Step> steps = plan(g, "x");

    assertEquals(Set.of("app"), deleted(steps));
    assertTrue(steps.contains(new Step.DropReference(g.get("shared"), "x")));
  }

  @Test
  void aDependentSharedWithALowerWaveSiblingIsLeftToThatSiblingInsteadOfDeadlocking() {
    // r → hi (wave 1) and r → lo (wave 0); d is owned by both. lo waits for hi's wave, so hi must not
    // wait for lo's deletion to begin: hi lets d go to lo.
    DependencyGraph g = graphOf(owner("r").build(), wave(owner("hi"), 1).ownedBy("r").build(),
        obj("lo").ownedBy("r").build(), obj("d").ownedBy("hi", "lo").build());

    assertEquals(Set.of(), deleted(plan(g, "r")).stream().filter(u -> u.equals("lo")).collect(Collectors.toSet()));
    List<Step> steps = plan(g, "hi");
    assertTrue(steps.contains(new Step.DropReference(g.get("d"), "hi")), steps.toString());
    assertEquals(Set.of(), deleted(steps));
  }

  @Test
  void anInvalidWaveCountsAsZero() {
    DependencyGraph g = graphOf(owner("x").build(), obj("bad").ownedBy("x").annotate(Names.DELETION_WAVE, "first").build(),
        wave(obj("low"), -1).ownedBy("x").build());

    assertEquals(Set.of("bad"), deleted(plan(g, "x")));
  }
}
