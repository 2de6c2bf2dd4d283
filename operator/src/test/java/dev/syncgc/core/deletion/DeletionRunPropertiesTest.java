package dev.syncgc.core.deletion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whole deletions over random worlds: one object is deleted, the planner's steps are applied by a
 * toy API server until nothing changes, then other controllers let go of what they hold and it runs
 * again. What ends up deleted, and in what order, is checked against brute force.
 */
class DeletionRunPropertiesTest {
  private static final int MAX_PASSES = 200;

  record Run(List<ObjectMetadata> world, String root) {}

  @Provide
  Arbitrary<Run> runs() {
    return Worlds.alive().flatMap(specs -> Arbitraries.integers().between(0, specs.size() - 1)
        .map(i -> new Run(Worlds.build(specs), Worlds.uid(i, specs.size()))));
  }

  /** Records what the checks found; the run goes on so that liveness is judged too. */
  private static final class Checker implements Simulation.Checks {
    private final Set<String> garbage;
    private final String root;
    final List<String> problems = new ArrayList<>();

    Checker(Set<String> garbage, String root) {
      this.garbage = garbage;
      this.root = root;
    }

    @Override
    public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {
      BruteForce bf = new BruteForce(seen);
      Set<String> dropped = new HashSet<>();
      steps.stream().filter(s -> s instanceof Step.DropReference)
          .forEach(s -> dropped.add(((Step.DropReference) s).dependent().uid()));
      Set<String> ownRing = bf.ring(owner.uid()); // these go with the owner: no wave holds them
      for (Step step : steps) {
        if (!(step instanceof Step.DeleteDependent del)) {
          continue;
        }
        ObjectMetadata d = seen.get(del.dependent().uid());
        if (d == null || d.beingDeleted() || !bf.validlyOwnedBy(d, owner.uid())) {
          problems.add(owner.uid() + " deletes " + del.dependent().uid() + ", not its live dependent");
        } else if (bf.keptByAnother(d, owner.uid())) {
          problems.add(owner.uid() + " deletes " + d.uid() + " that another owner keeps: " + seen.values());
        }
        for (ObjectMetadata s : seen.values()) {
          if (!s.uid().equals(d == null ? "" : d.uid()) && garbage.contains(s.uid()) && !dropped.contains(s.uid())
              && !ownRing.contains(s.uid())
              && bf.validlyOwnedBy(s, owner.uid()) && Simulation.wave(s) > Simulation.wave(del.dependent())) {
            problems.add(owner.uid() + " deletes " + del.dependent().uid() + " (wave "
                + Simulation.wave(del.dependent()) + ") while " + s.uid() + " (wave " + Simulation.wave(s) + ") is left");
          }
        }
      }
    }

    @Override
    public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
        Map<String, ObjectMetadata> after) {
      BruteForce then = new BruteForce(before); // links judged while the owner was there
      Set<String> ring = new HashSet<>(then.ring(uid));
      ring.addAll(unit);
      for (ObjectMetadata d : after.values()) {
        if (!ring.contains(d.uid()) && then.validlyOwnedBy(d, uid) && garbage.contains(d.uid())) {
          problems.add(uid + " gone before its dependent " + d.uid());
        }
      }
      if (uid.equals(root)) {
        for (String g : garbage) {
          if (after.containsKey(g) && !ring.contains(g)) { // a ring goes as a unit
            problems.add("the deleted owner " + root + " went before " + g);
          }
        }
      }
    }
  }

  @Property(tries = 400)
  void deletesExactlyWhatTheOwnerReachesMinusWhatASolidOwnerOutsideKeepsAndFinishes(@ForAll("runs") Run run) {
    List<ObjectMetadata> world = new ArrayList<>(run.world());
    Simulation setup = new Simulation(world, new Simulation.Checks() {
      @Override
      public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {}

      @Override
      public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
          Map<String, ObjectMetadata> after) {}
    });
    setup.delete(run.root());
    Set<String> garbage = new BruteForce(setup.objects()).garbage(run.root());
    Checker checker = new Checker(garbage, run.root());
    Simulation sim = new Simulation(List.copyOf(setup.objects().values()), checker);

    assertTrue(sim.run(MAX_PASSES), "settles while others hold objects");
    sim.releaseHolds();
    assertTrue(sim.run(MAX_PASSES), "settles once they let go");

    assertEquals(List.of(), checker.problems);
    Set<String> expected = new HashSet<>(garbage);
    expected.add(run.root());
    assertEquals(expected, new HashSet<>(sim.removed()), "deleted: " + world);
    for (ObjectMetadata left : sim.objects().values()) {
      assertFalse(left.beingDeleted(), "every deletion whose blockers cleared finished: " + left);
    }
  }
}
