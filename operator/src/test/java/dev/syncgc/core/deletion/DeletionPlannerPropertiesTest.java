package dev.syncgc.core.deletion;

import java.util.Optional;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.OnTimeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * SPEC safety invariant 1 over random snapshots (see {@link Worlds}): every object under synchronous
 * deletion is planned once; what the planner asks for is checked against brute-force rules computed
 * from the objects ({@link BruteForce}), not from the graph. Whole deletions are in
 * {@link DeletionRunPropertiesTest}.
 */
class DeletionPlannerPropertiesTest {
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  record World(Map<String, ObjectMetadata> objects, DependencyGraph graph, BruteForce bf) {
    static World of(List<ObjectMetadata> list) {
      DependencyGraph graph = TestObjects.graph();
      list.forEach(graph::upsert);
      BruteForce bf = BruteForce.of(list);
      Map<String, ObjectMetadata> objects = new java.util.LinkedHashMap<>();
      list.forEach(o -> objects.put(o.uid(), o));
      return new World(objects, graph, bf);
    }

    List<ObjectMetadata> underSynchronousDeletion() {
      return objects.values().stream().filter(o -> o.beingDeleted() && o.hasFinalizer(Names.FINALIZER)).toList();
    }
  }

  @Provide
  Arbitrary<World> worlds() {
    return Worlds.snapshots().map(specs -> World.of(Worlds.build(specs)));
  }

  private List<Step> plan(World w, ObjectMetadata owner) {
    return planner.plan(w.graph(), owner, Propagation.SYNCHRONOUS, Optional.empty(), OnTimeout.RELEASE, Worlds.NOW,
        uid -> null, List.of(), Simulation::wave);
  }

  @Property(tries = 300)
  void neverDeletesAnObjectThatAnotherOwnerKeepsCountingItsRingOnlyWhenKeptFromOutside(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          assertFalse(w.bf().keptByAnother(del.dependent(), owner.uid()), owner.uid() + " deletes " + del.dependent());
        }
      }
    }
  }

  @Property(tries = 300)
  void neverDeletesAnObjectWithoutAValidLinkToTheOwner(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          assertTrue(w.bf().validlyOwnedBy(del.dependent(), owner.uid()), owner.uid() + " deletes " + del.dependent());
        }
      }
    }
  }

  @Property(tries = 300)
  void neverDeletesAnObjectAlreadyBeingDeleted(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          assertFalse(del.dependent().beingDeleted(), owner.uid() + " deletes " + del.dependent());
        }
      }
    }
  }

  @Property(tries = 300)
  void onlyDropsTheReferenceToTheOwnerItself(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DropReference drop) {
          assertEquals(owner.uid(), drop.ownerUid());
          assertTrue(w.bf().validlyOwnedBy(drop.dependent(), owner.uid()), drop.toString());
        }
      }
    }
  }

  @Property(tries = 300)
  void releasesARingOnlyWhenEveryMemberWaitsOnlyForItsDependentsAndNothingOutsideRemains(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.ReleaseCycle cycle) {
          Set<String> members = cycle.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
          assertEquals(w.bf().ring(owner.uid()), members, "exactly the owner's ring");
          for (ObjectMetadata m : cycle.members()) {
            assertTrue(m.beingDeleted(), m + " is being deleted");
            assertFalse(m.hasFinalizer(Worlds.HOLD), m + " is held by another controller: waited for");
            for (ObjectMetadata d : w.objects().values()) {
              if (w.bf().validlyOwnedBy(d, m.uid())) {
                assertTrue(members.contains(d.uid()), m + " still has " + d + " outside the ring");
              }
            }
          }
        }
      }
    }
  }

  @Property(tries = 300)
  void everyPlanEndsWithExactlyOneReleaseOrWait(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      List<Step> steps = plan(w, owner);
      long terminal = steps.stream().filter(s -> s instanceof Step.Release
          || s instanceof Step.ReleaseCycle || s instanceof Step.Wait).count();
      assertEquals(1, terminal, steps.toString());
      Step last = steps.get(steps.size() - 1);
      assertTrue(last instanceof Step.Release || last instanceof Step.ReleaseCycle || last instanceof Step.Wait);
    }
  }

  @Property(tries = 300)
  void releasesAsCompletedOnlyWhenNoValidDependentRemains(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.Release r && r.outcome() == Outcome.COMPLETED) {
          Set<String> left = new HashSet<>();
          w.objects().values().stream().filter(d -> w.bf().validlyOwnedBy(d, owner.uid()))
              .forEach(d -> left.add(d.uid()));
          assertEquals(Set.of(), left);
        }
      }
    }
  }
}
