package dev.syncgc.core.deletion;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random worlds for the planner's property tests: owner links among 2..12 objects (rings, diamonds,
 * self-owners) and a few never-observed owners, random scopes and link validity, owners of untracked
 * or unserved kinds, deletion states, other controllers' finalizers and deletion waves.
 */
final class Worlds {
  static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  static final String HOLD = "example.com/hold";
  static final int MAX_OBJECTS = 12;
  static final int GHOSTS = 2;

  private Worlds() {}

  enum State { ALIVE, ALIVE_WITH_FINALIZER, MARKED_AS_DELETED, TO_DELETE }

  enum LinkScope { MATCHING, NAMESPACED, CLUSTER, UNKNOWN }

  /** {@code tracked == false} names a kind syncgc does not watch. */
  record LinkSpec(int owner, LinkScope scope, boolean tracked) {}

  record ObjSpec(String namespace, State state, boolean started, boolean held, int wave, List<LinkSpec> owners) {}

  static String uid(int i, int n) {
    return i < n ? "o" + i : "ghost" + (i - n);
  }

  static List<ObjectMetadata> build(List<ObjSpec> specs) {
    int n = specs.size();
    List<ObjectMetadata> objects = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ObjSpec s = specs.get(i);
      TestObjects.Builder b = TestObjects.obj(uid(i, n)).namespace(s.namespace().isEmpty() ? null : s.namespace());
      java.util.Set<Integer> named = new java.util.HashSet<>();
      for (LinkSpec l : s.owners()) {
        // objects of kinds syncgc does not watch, or the API server does not serve, are never observed
        boolean observable = l.tracked() && l.scope() != LinkScope.UNKNOWN;
        int owner = observable ? l.owner() % (n + GHOSTS) : n + l.owner() % GHOSTS;
        if (!named.add(owner)) {
          continue; // the API server keeps one owner reference per uid (it drops duplicates)
        }
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
        case MARKED_AS_DELETED -> b.deleting().syncFinalizer();
        case TO_DELETE -> b.deleting().gracePeriod(30).finalizers("example.com/other");
      }
      if (s.started()) {
        b.deadline(NOW.plusSeconds(60));
      }
      if (s.held()) {
        b.finalizers(HOLD);
      }
      if (s.wave() != 0) {
        b.annotate(Names.DELETION_WAVE, Integer.toString(s.wave()));
      }
      objects.add(b.build());
    }
    return objects;
  }

  private static Arbitrary<LinkSpec> links() {
    return Combinators.combine(
        Arbitraries.integers().between(0, MAX_OBJECTS + GHOSTS - 1),
        Arbitraries.frequency(Tuple.of(8, LinkScope.MATCHING), Tuple.of(1, LinkScope.NAMESPACED),
            Tuple.of(1, LinkScope.CLUSTER), Tuple.of(1, LinkScope.UNKNOWN)),
        Arbitraries.frequency(Tuple.of(8, true), Tuple.of(1, false)))
        .as(LinkSpec::new);
  }

  /** Any states: for checks of one plan. */
  static Arbitrary<List<ObjSpec>> snapshots() {
    return Combinators.combine(
        Arbitraries.frequency(Tuple.of(5, "a"), Tuple.of(2, "b"), Tuple.of(1, "")),
        Arbitraries.frequency(Tuple.of(3, State.ALIVE), Tuple.of(1, State.ALIVE_WITH_FINALIZER),
            Tuple.of(3, State.MARKED_AS_DELETED), Tuple.of(1, State.TO_DELETE)),
        Arbitraries.of(true, false),
        Arbitraries.frequency(Tuple.of(3, false), Tuple.of(1, true)),
        Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1), Tuple.of(1, -1), Tuple.of(1, 2)),
        links().list().ofMaxSize(4))
        .as(ObjSpec::new).list().ofMinSize(2).ofMaxSize(MAX_OBJECTS);
  }

  /**
   * Every object alive, some opted in, some carrying another controller's finalizer: for a whole
   * deletion of one of them, run to the end. Mostly one namespace, so that most links are valid.
   */
  static Arbitrary<List<ObjSpec>> alive() {
    return Combinators.combine(
        Arbitraries.frequency(Tuple.of(8, "a"), Tuple.of(1, "b"), Tuple.of(1, "")),
        Arbitraries.frequency(Tuple.of(3, State.ALIVE), Tuple.of(1, State.ALIVE_WITH_FINALIZER)),
        Arbitraries.of(false),
        Arbitraries.frequency(Tuple.of(5, false), Tuple.of(1, true)),
        Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1), Tuple.of(1, -1), Tuple.of(1, 2)),
        links().list().ofMaxSize(3))
        .as(ObjSpec::new).list().ofMinSize(2).ofMaxSize(MAX_OBJECTS);
  }
}
