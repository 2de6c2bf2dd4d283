package dev.syncgc.core.deletion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * SPEC safety invariant 1 over random worlds: random owner links among 2..12 objects (and a few
 * never-observed owners), random scopes and link validity, tracked or not, random deletion states.
 * Every object under synchronous deletion is planned; what the planner asks for is checked against
 * brute-force rules computed from the world, not from the graph.
 */
class DeletionPlannerPropertiesTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private static final int MAX_OBJECTS = 12;
  private static final int GHOSTS = 2;
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  enum State { ALIVE, ALIVE_WITH_FINALIZER, MARKED_AS_DELETED, TO_DELETE }

  enum LinkScope { MATCHING, NAMESPACED, CLUSTER, UNKNOWN }

  record LinkSpec(int owner, LinkScope scope, boolean tracked) {}

  record ObjSpec(String namespace, State state, boolean started, List<LinkSpec> owners) {}

  record World(Map<String, ObjectMetadata> objects, DependencyGraph graph) {
    static World of(List<ObjSpec> specs) {
      int n = specs.size();
      Map<String, ObjectMetadata> objects = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        ObjSpec s = specs.get(i);
        TestObjects.Builder b = TestObjects.obj(uid(i, n)).namespace(s.namespace().isEmpty() ? null : s.namespace());
        for (LinkSpec l : s.owners()) {
          int owner = l.owner() % (n + GHOSTS);
          Scope scope = switch (l.scope()) {
            case MATCHING -> owner < n && specs.get(owner).namespace().isEmpty() ? Scope.CLUSTER : Scope.NAMESPACED;
            case NAMESPACED -> Scope.NAMESPACED;
            case CLUSTER -> Scope.CLUSTER;
            case UNKNOWN -> Scope.UNKNOWN;
          };
          b.ownedBy(TestObjects.link(uid(owner, n), scope, l.tracked()));
        }
        switch (s.state()) {
          case ALIVE -> { }
          case ALIVE_WITH_FINALIZER -> b.syncFinalizer();
          case MARKED_AS_DELETED -> b.deleting().syncFinalizer().finalizers("example.com/other");
          case TO_DELETE -> b.deleting().gracePeriod(30).finalizers("example.com/other");
        }
        if (s.started()) {
          b.deadline(NOW.plusSeconds(60));
        }
        objects.put(uid(i, n), b.build());
      }
      DependencyGraph graph = TestObjects.graph();
      objects.values().forEach(graph::upsert);
      return new World(objects, graph);
    }

    private static String uid(int i, int n) {
      return i < n ? "o" + i : "ghost" + (i - n);
    }

    /** Whether Kubernetes honours the link, worked out from the world alone. */
    boolean valid(ObjectMetadata dependent, OwnerLink link) {
      return switch (TestObjects.KINDS.scope(link)) {
        case UNKNOWN -> false;
        case CLUSTER -> true;
        case NAMESPACED -> {
          ObjectMetadata owner = objects.get(link.uid());
          yield dependent.ref().namespaced()
              && (owner == null || dependent.ref().namespace().equals(owner.ref().namespace()));
        }
      };
    }

    boolean solid(OwnerLink link) {
      ObjectMetadata owner = objects.get(link.uid());
      return !TestObjects.KINDS.tracked(link) || (owner != null && !owner.beingDeleted());
    }

    boolean validlyOwnedBy(ObjectMetadata d, String ownerUid) {
      return d.owners().stream().anyMatch(l -> l.uid().equals(ownerUid) && valid(d, l));
    }

    boolean hasOtherSolidOwner(ObjectMetadata d, String ownerUid) {
      return d.owners().stream().anyMatch(l -> !l.uid().equals(ownerUid) && valid(d, l) && solid(l));
    }

    List<ObjectMetadata> underSynchronousDeletion() {
      return objects.values().stream().filter(o -> o.beingDeleted() && o.hasFinalizer(Names.FINALIZER)).toList();
    }
  }

  @Provide
  Arbitrary<World> worlds() {
    Arbitrary<LinkSpec> link = Combinators.combine(
        Arbitraries.integers().between(0, MAX_OBJECTS + GHOSTS - 1),
        Arbitraries.frequency(Tuple.of(6, LinkScope.MATCHING), Tuple.of(1, LinkScope.NAMESPACED),
            Tuple.of(1, LinkScope.CLUSTER), Tuple.of(1, LinkScope.UNKNOWN)),
        Arbitraries.frequency(Tuple.of(4, true), Tuple.of(1, false)))
        .as(LinkSpec::new);
    Arbitrary<ObjSpec> object = Combinators.combine(
        Arbitraries.frequency(Tuple.of(5, "a"), Tuple.of(2, "b"), Tuple.of(1, "")),
        Arbitraries.frequency(Tuple.of(3, State.ALIVE), Tuple.of(1, State.ALIVE_WITH_FINALIZER),
            Tuple.of(3, State.MARKED_AS_DELETED), Tuple.of(1, State.TO_DELETE)),
        Arbitraries.of(true, false),
        link.list().ofMaxSize(4))
        .as(ObjSpec::new);
    return object.list().ofMinSize(2).ofMaxSize(MAX_OBJECTS).map(World::of);
  }

  private List<Step> plan(World w, ObjectMetadata owner) {
    return planner.plan(w.graph(), owner, Propagation.SYNCHRONOUS, Optional.empty(), NOW, uid -> null, List.of());
  }

  @Property(tries = 300)
  void neverDeletesAnObjectWithAnotherSolidOwner(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          assertFalse(w.hasOtherSolidOwner(del.dependent(), owner.uid()),
              owner.uid() + " deletes " + del.dependent());
        }
      }
    }
  }

  @Property(tries = 300)
  void neverDeletesAnObjectWithoutAValidLinkToTheOwner(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.DeleteDependent del) {
          assertTrue(w.validlyOwnedBy(del.dependent(), owner.uid()), owner.uid() + " deletes " + del.dependent());
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
          assertTrue(w.validlyOwnedBy(drop.dependent(), owner.uid()), drop.toString());
        }
      }
    }
  }

  @Property(tries = 300)
  void releasesCycleOnlyWhenEveryMemberIsDeletedAndNothingOutsideRemains(@ForAll("worlds") World w) {
    for (ObjectMetadata owner : w.underSynchronousDeletion()) {
      for (Step step : plan(w, owner)) {
        if (step instanceof Step.ReleaseCycle cycle) {
          Set<String> members = cycle.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
          assertTrue(members.contains(owner.uid()));
          for (ObjectMetadata m : cycle.members()) {
            assertTrue(m.beingDeleted(), m + " is being deleted");
            for (ObjectMetadata d : w.objects().values()) {
              if (w.validlyOwnedBy(d, m.uid())) {
                assertTrue(members.contains(d.uid()), m + " still has " + d + " outside the cycle");
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
          w.objects().values().stream().filter(d -> w.validlyOwnedBy(d, owner.uid()))
              .forEach(d -> left.add(d.uid()));
          assertEquals(Set.of(), left);
        }
      }
    }
  }
}
