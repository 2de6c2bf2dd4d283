package dev.syncgc.core.deletion;

import dev.syncgc.core.settings.Propagation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC safety invariant 1 over random snapshots (see {@link Worlds}): every object under synchronous
 * deletion is planned once, with its own deadline and {@code on-timeout}, some dependents' last call
 * failed and sometimes a kind that could not be listed; what the planner asks for is checked against
 * brute-force rules computed from the objects ({@link BruteForce}), not from the graph. Whole
 * deletions are in {@link DeletionRunPropertiesTest}. How often the worlds hold each interesting case
 * is printed (jqwik statistics) and a floor is checked, so a generator that stops reaching one fails.
 */
class DeletionPlannerPropertiesTest {
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  /**
   * @param failed the objects whose last API call failed
   * @param unverified kinds that could not be listed (the freshness check's blockers)
   */
  record World(Map<String, ObjectMetadata> objects, DependencyGraph graph, BruteForce bf, Set<String> failed,
      List<Blocker> unverified) {
    static World of(List<ObjectMetadata> list, Set<Integer> failedIndexes, boolean unverified) {
      DependencyGraph graph = TestObjects.graph();
      list.forEach(graph::upsert);
      BruteForce bf = BruteForce.of(list);
      Map<String, ObjectMetadata> objects = new java.util.LinkedHashMap<>();
      list.forEach(o -> objects.put(o.uid(), o));
      Set<String> failed = new HashSet<>();
      failedIndexes.stream().filter(i -> i < list.size()).forEach(i -> failed.add(list.get(i).uid()));
      return new World(objects, graph, bf, failed,
          unverified ? List.of(Blocker.unverified("cannot list Gadget: forbidden")) : List.of());
    }

    List<ObjectMetadata> underSynchronousDeletion() {
      return objects.values().stream().filter(o -> o.beingDeleted() && o.hasFinalizer(Names.FINALIZER)).toList();
    }
  }

  @Provide
  Arbitrary<World> worlds() {
    return Combinators.combine(Worlds.snapshots(),
        Arbitraries.frequency(Tuple.of(2, Set.<Integer>of()),
            Tuple.of(1, Set.of(0)), Tuple.of(1, Set.of(1, 3)), Tuple.of(1, Set.of(2, 5, 7))),
        Arbitraries.frequency(Tuple.of(5, false), Tuple.of(1, true)))
        .as((specs, failed, unverified) -> World.of(Worlds.build(specs), failed, unverified));
  }

  /** The owner's plan with its own timeout and on-timeout (from its annotations). */
  private List<Step> plan(World w, ObjectMetadata owner) {
    DeletionSettings settings = DeletionSettings.fromAnnotations(owner.annotations());
    return Plans.plan(planner, w.graph(), owner, Propagation.SYNCHRONOUS, settings.timeout(),
        settings.onTimeout().orElse(OnTimeout.RELEASE), Worlds.NOW, uid -> w.failed().contains(uid) ? "403 forbidden" : null, w.unverified(), Simulation::wave);
  }

  /**
   * Whatever the deadline: no dependent is deleted that carries a reference
   * Kubernetes treats as invalid (the built-in collector would keep it), nor one with an alive owner
   * outside its ring (a co-owner that another cascade is about to delete is still alive: that cascade
   * deletes it). Also prints what the worlds hold, and checks that the cases are reached.
   */
  @Property(tries = 300)
  void neverDeletesAnObjectCarryingAnInvalidReferenceOrWithAnAliveCoOwner(@ForAll("worlds") World w) {
    WorldFeatures features = new WorldFeatures(w.objects());
    collectStatistics(w, features);
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          ObjectMetadata d = del.dependent();
          assertFalse(features.hasInvalidLink(d), owner.uid() + " deletes " + d + ", which carries an invalid reference");
          assertFalse(features.hasAliveCoOwnerOutsideItsRing(d, owner.uid()),
              owner.uid() + " deletes " + d + ", which has an alive co-owner");
        }
      }
    }
  }

  private void collectStatistics(World w, WorldFeatures features) {
    Statistics.label("ring").collect(features.hasRing());
    Statistics.label("diamond").collect(features.hasDiamond());
    features.invalidReferences().forEach(kind -> Statistics.label("invalid reference").collect(kind));
    Statistics.label("unverified kind").collect(!w.unverified().isEmpty());
    Statistics.label("failed call on a dependent").collect(w.objects().values().stream()
        .anyMatch(d -> w.failed().contains(d.uid()) && !d.owners().isEmpty()));
    List<ObjectMetadata> owners = w.underSynchronousDeletion();
    owners.forEach(o -> Statistics.label("deadline of an owner under deletion").collect(WorldFeatures.deadline(o)));
    boolean case4 = false;
    boolean case6 = false;
    for (ObjectMetadata owner : owners) {
      boolean pastRelease = WorldFeatures.deadline(owner).endsWith("Release");
      for (ObjectMetadata d : w.objects().values()) {
        if (!d.beingDeleted() && w.bf().validlyOwnedBy(d, owner.uid())) {
          case4 |= features.hasInvalidLink(d);
          case6 |= pastRelease && w.unverified().isEmpty() && features.hasDoomedCoOwner(d, owner.uid());
        }
      }
    }
    Statistics.label("case 4: live dependent of an owner under deletion carries an invalid reference").collect(case4);
    Statistics.label("case 6: past a Release deadline, a live dependent has an alive co-owner under a cascade").collect(case6);
    Statistics.label("ring").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("diamond").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("unverified kind").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("failed call on a dependent").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("case 4: live dependent of an owner under deletion carries an invalid reference")
        .coverage(c -> c.check(true).percentage(p -> p >= 2));
    Statistics.label("case 6: past a Release deadline, a live dependent has an alive co-owner under a cascade")
        .coverage(c -> c.check(true).percentage(p -> p >= 2));
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
        if (step instanceof Step.ReleaseRing ring) {
          Set<String> members = ring.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
          assertEquals(w.bf().ring(owner.uid()), members, "exactly the owner's ring");
          for (ObjectMetadata m : ring.members()) {
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
          || s instanceof Step.ReleaseRing || s instanceof Step.Wait).count();
      assertEquals(1, terminal, steps.toString());
      Step last = steps.get(steps.size() - 1);
      assertTrue(last instanceof Step.Release || last instanceof Step.ReleaseRing || last instanceof Step.Wait);
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
