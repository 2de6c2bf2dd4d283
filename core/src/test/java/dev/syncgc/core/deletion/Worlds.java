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
 * self-owners) and a few never-observed owners, random scopes and link validity (invalid references:
 * cluster-scoped dependents of namespaced owners, owners in another namespace, unserved kinds),
 * owners of untracked kinds, deletion states, deadlines (none yet, ahead or passed; {@code on-timeout}
 * Release or Keep), other controllers' finalizers and deletion waves. The property tests print how often each of these occurs.
 */
public final class Worlds {
  static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  public static final String HOLD = "example.com/hold";
  public static final int MAX_OBJECTS = 12;
  static final int GHOSTS = 2;

  private Worlds() {}

  enum State { ALIVE, ALIVE_WITH_FINALIZER, MARKED_AS_DELETED, TO_DELETE }

  enum LinkScope { MATCHING, NAMESPACED, CLUSTER, UNKNOWN }

  /** An object's recorded deadline: none (yet), ahead of {@link #NOW}, or passed. */
  enum Deadline { NONE, AHEAD, PASSED }

  /** {@code tracked == false} names a kind syncgc does not watch. */
  record LinkSpec(int owner, LinkScope scope, boolean tracked) {}

  /** {@code keep}: {@code on-timeout: Keep}, else Release (the default). */
  public record ObjSpec(String namespace, State state, Deadline deadline, boolean keep, boolean held, int wave,
      List<LinkSpec> owners) {}

  public static String uid(int i, int n) {
    return i < n ? "o" + i : "ghost" + (i - n);
  }

  public static List<ObjectMetadata> build(List<ObjSpec> specs) {
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
      switch (s.deadline()) {
        case NONE -> { }
        case AHEAD -> b.deadline(NOW.plusSeconds(60));
        case PASSED -> b.deadline(NOW.minusSeconds(1));
      }
      if (s.keep()) {
        b.annotate(Names.ON_TIMEOUT, "Keep");
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

  /**
   * @param usual how much likelier a link of the owner's own scope, to a tracked kind, is than each of
   *     the others (forced scopes, unserved kinds, untracked kinds: references that keep by default)
   */
  private static Arbitrary<LinkSpec> links(int usual) {
    return Combinators.combine(
        Arbitraries.integers().between(0, MAX_OBJECTS + GHOSTS - 1),
        Arbitraries.frequency(Tuple.of(usual, LinkScope.MATCHING), Tuple.of(1, LinkScope.NAMESPACED),
            Tuple.of(1, LinkScope.CLUSTER), Tuple.of(1, LinkScope.UNKNOWN)),
        Arbitraries.frequency(Tuple.of(usual, true), Tuple.of(1, false)))
        .as(LinkSpec::new);
  }

  /**
   * Any states, for checks of one plan: {@link #randomSnapshots()}, a third of them with a cascade
   * and a deadline planted in them ({@link #withDoomedCoOwnerAtADeadline}), which random states reach
   * about once in 200 worlds.
   */
  static Arbitrary<List<ObjSpec>> snapshots() {
    return Combinators.combine(randomSnapshots(), Arbitraries.integers().between(0, 2),
        Arbitraries.integers().between(0, MAX_OBJECTS - 1).list().ofSize(4).uniqueElements())
        .as((specs, plant, at) -> plant == 0 ? withDoomedCoOwnerAtADeadline(specs, at) : specs);
  }

  /**
   * The world with four of its objects (at indexes {@code at}, taken modulo its size; unchanged if it
   * has fewer than four) made into: c marked as deleted by syncgc, b alive and owned by c (so doomed
   * by c's cascade), x marked as deleted with its deadline passed ({@code on-timeout: Release}),
   * and d alive, owned by x and by b; all in d's namespace, their other owner links kept.
   */
  static List<ObjSpec> withDoomedCoOwnerAtADeadline(List<ObjSpec> specs, List<Integer> at) {
    int n = specs.size();
    List<Integer> idx = at.stream().map(i -> i % n).distinct().toList();
    if (idx.size() < 4) {
      return specs;
    }
    List<ObjSpec> out = new ArrayList<>(specs);
    int c = idx.get(0);
    int b = idx.get(1);
    int x = idx.get(2);
    int d = idx.get(3);
    String ns = specs.get(d).namespace();
    ObjSpec sc = specs.get(c);
    ObjSpec sb = specs.get(b);
    ObjSpec sx = specs.get(x);
    ObjSpec sd = specs.get(d);
    out.set(c, new ObjSpec(ns, State.MARKED_AS_DELETED, sc.deadline(), sc.keep(), sc.held(), sc.wave(), sc.owners()));
    out.set(b, new ObjSpec(ns, State.ALIVE, Deadline.NONE, sb.keep(), false, sb.wave(),
        plus(sb.owners(), new LinkSpec(c, LinkScope.MATCHING, true))));
    out.set(x, new ObjSpec(ns, State.MARKED_AS_DELETED, Deadline.PASSED, false, sx.held(), sx.wave(), sx.owners()));
    out.set(d, new ObjSpec(ns, State.ALIVE, sd.deadline(), sd.keep(), sd.held(), sd.wave(),
        plus(sd.owners(), new LinkSpec(x, LinkScope.MATCHING, true), new LinkSpec(b, LinkScope.MATCHING, true))));
    return out;
  }

  /**
   * The world with three of its objects (at indexes {@code at}, modulo its size; unchanged if it has
   * fewer than three) made into a diamond under the first, r: b owned by r, d owned by r and by b, all
   * in r's namespace, their other owner links kept. When r's deadline passes, d's co-owner b is alive
   * and doomed by r's own cascade.
   */
  static List<ObjSpec> withDiamondUnder(List<ObjSpec> specs, List<Integer> at) {
    int n = specs.size();
    List<Integer> idx = at.stream().map(i -> i % n).distinct().toList();
    if (idx.size() < 3) {
      return specs;
    }
    List<ObjSpec> out = new ArrayList<>(specs);
    int r = idx.get(0);
    int b = idx.get(1);
    int d = idx.get(2);
    String ns = specs.get(r).namespace();
    ObjSpec sb = specs.get(b);
    ObjSpec sd = specs.get(d);
    out.set(b, new ObjSpec(ns, sb.state(), sb.deadline(), sb.keep(), sb.held(), sb.wave(),
        plus(sb.owners(), new LinkSpec(r, LinkScope.MATCHING, true))));
    out.set(d, new ObjSpec(ns, sd.state(), sd.deadline(), sd.keep(), sd.held(), sd.wave(),
        plus(sd.owners(), new LinkSpec(r, LinkScope.MATCHING, true), new LinkSpec(b, LinkScope.MATCHING, true))));
    return out;
  }

  private static List<LinkSpec> plus(List<LinkSpec> links, LinkSpec... more) {
    List<LinkSpec> all = new ArrayList<>(List.of(more)); // first, so that they win over a duplicate uid
    all.addAll(links);
    return all;
  }

  private static Arbitrary<List<ObjSpec>> randomSnapshots() {
    return Combinators.combine(
        Arbitraries.frequency(Tuple.of(5, "a"), Tuple.of(2, "b"), Tuple.of(1, "")),
        Arbitraries.frequency(Tuple.of(3, State.ALIVE), Tuple.of(1, State.ALIVE_WITH_FINALIZER),
            Tuple.of(3, State.MARKED_AS_DELETED), Tuple.of(1, State.TO_DELETE)),
        Arbitraries.frequency(Tuple.of(2, Deadline.NONE), Tuple.of(3, Deadline.AHEAD), Tuple.of(2, Deadline.PASSED)),
        Arbitraries.frequency(Tuple.of(2, false), Tuple.of(1, true)),
        Arbitraries.frequency(Tuple.of(3, false), Tuple.of(1, true)),
        Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1), Tuple.of(1, -1), Tuple.of(1, 2)),
        links(8).list().ofMaxSize(4))
        .as(ObjSpec::new).list().ofMinSize(2).ofMaxSize(MAX_OBJECTS);
  }

  /**
   * Every object alive, some opted in, some carrying another controller's finalizer: for a whole
   * deletion of one of them, run to the end (the run gives the deleted one its deadline). Mostly one
   * namespace and references of the usual kind, so that most links are valid and the cascade has
   * something to delete (with the snapshots' mix, a reference that keeps by default sits on most
   * objects and two thirds of the runs delete nothing but the deleted object).
   */
  public static Arbitrary<List<ObjSpec>> alive() {
    return Combinators.combine(
        Arbitraries.frequency(Tuple.of(8, "a"), Tuple.of(1, "b"), Tuple.of(1, "")),
        Arbitraries.frequency(Tuple.of(3, State.ALIVE), Tuple.of(1, State.ALIVE_WITH_FINALIZER)),
        Arbitraries.of(Deadline.NONE),
        Arbitraries.of(false),
        Arbitraries.frequency(Tuple.of(5, false), Tuple.of(1, true)),
        Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(1, 1), Tuple.of(1, -1), Tuple.of(1, 2)),
        links(24).list().ofMaxSize(3))
        .as(ObjSpec::new).list().ofMinSize(2).ofMaxSize(MAX_OBJECTS);
  }
}
