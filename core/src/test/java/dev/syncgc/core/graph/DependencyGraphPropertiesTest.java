package dev.syncgc.core.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random watch histories over a small universe of uids: whatever the order the events arrive in
 * (each object's own events in order, or upserts in any order), the graph answers as a brute-force
 * recomputation from the final set of observed objects.
 */
class DependencyGraphPropertiesTest {
  private static final int OBSERVABLE = 6;
  /** u0..u5 can be observed; g0, g1 are only ever referenced. */
  private static final List<String> UIDS = IntStream.range(0, OBSERVABLE + 2)
      .mapToObj(i -> i < OBSERVABLE ? "u" + i : "g" + (i - OBSERVABLE)).toList();

  record Link(int owner, Scope scope, boolean tracked) {}

  /** An upsert (or a remove) of UIDS[uid]; its resourceVersion is its position in the history. */
  record Event(int uid, boolean remove, String namespace, boolean deleting, List<Link> owners) {
    ObjectMetadata meta(long rv) {
      TestObjects.Builder b = TestObjects.obj(UIDS.get(uid)).rv(rv)
          .namespace(namespace.isEmpty() ? null : namespace);
      for (Link l : owners) {
        b.ownedBy(TestObjects.link(UIDS.get(l.owner()), l.scope(), l.tracked()));
      }
      return deleting ? b.deleting().build() : b.build();
    }
  }

  @Provide
  Arbitrary<List<Event>> histories() {
    return events(true).list().ofMaxSize(40);
  }

  @Provide
  Arbitrary<List<Event>> upserts() {
    return events(false).list().ofMaxSize(40);
  }

  private static Arbitrary<Event> events(boolean withRemoves) {
    Arbitrary<Link> link = Combinators.combine(
        Arbitraries.integers().between(0, UIDS.size() - 1),
        Arbitraries.frequency(
            Tuple.of(6, Scope.NAMESPACED), Tuple.of(3, Scope.CLUSTER), Tuple.of(1, Scope.UNKNOWN)),
        Arbitraries.frequency(Tuple.of(4, true), Tuple.of(1, false)))
        .as(Link::new);
    return Combinators.combine(
        Arbitraries.integers().between(0, OBSERVABLE - 1),
        withRemoves ? Arbitraries.frequency(Tuple.of(1, true), Tuple.of(3, false)) : Arbitraries.just(false),
        Arbitraries.frequency(Tuple.of(5, "a"), Tuple.of(2, "b"), Tuple.of(1, "")),
        Arbitraries.of(true, false),
        link.list().ofMaxSize(3))
        .as(Event::new);
  }

  /** Turns events into graph operations: an ObjectMetadata to upsert or a uid to remove. */
  private static List<Object> operations(List<Event> events) {
    List<Object> ops = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      ops.add(e.remove() ? UIDS.get(e.uid()) : e.meta(i + 1));
    }
    return ops;
  }

  private static DependencyGraph apply(List<Object> ops) {
    DependencyGraph g = TestObjects.graph();
    for (Object op : ops) {
      if (op instanceof ObjectMetadata m) {
        g.upsert(m);
      } else {
        g.remove((String) op);
      }
    }
    return g;
  }

  private static String uidOf(Object op) {
    return op instanceof ObjectMetadata m ? m.uid() : (String) op;
  }

  /** A random merge of the per-object histories, each kept in its own order. */
  private static List<Object> interleave(List<Object> ops, Random random) {
    Map<String, Deque<Object>> perObject = new LinkedHashMap<>();
    for (Object op : ops) {
      perObject.computeIfAbsent(uidOf(op), k -> new ArrayDeque<>()).add(op);
    }
    List<Deque<Object>> queues = new ArrayList<>(perObject.values());
    List<Object> result = new ArrayList<>();
    while (!queues.isEmpty()) {
      int i = random.nextInt(queues.size());
      result.add(queues.get(i).poll());
      if (queues.get(i).isEmpty()) {
        queues.remove(i);
      }
    }
    return result;
  }

  /** The last word on each object; uids are never reused, so nothing comes back once removed. */
  private static Map<String, ObjectMetadata> finalState(List<Object> ops) {
    Map<String, ObjectMetadata> observed = new HashMap<>();
    Set<String> removed = new HashSet<>();
    for (Object op : ops) {
      if (op instanceof ObjectMetadata m) {
        if (!removed.contains(m.uid())) {
          observed.put(m.uid(), m);
        }
      } else {
        observed.remove((String) op);
        removed.add((String) op);
      }
    }
    return observed;
  }

  private static boolean valid(ObjectMetadata dependent, OwnerLink link, Map<String, ObjectMetadata> observed) {
    if (TestObjects.KINDS.scope(link) == Scope.UNKNOWN) {
      return false;
    }
    if (TestObjects.KINDS.scope(link) == Scope.CLUSTER) {
      return true;
    }
    if (dependent.ref().namespace() == null) {
      return false;
    }
    ObjectMetadata owner = observed.get(link.uid());
    return owner == null || dependent.ref().namespace().equals(owner.ref().namespace());
  }

  private static void assertMatchesBruteForce(DependencyGraph g, Map<String, ObjectMetadata> observed) {
    assertEquals(observed.size(), g.size(), "size");
    assertEquals(observed.values().stream().mapToLong(o -> o.owners().stream().map(OwnerLink::uid).distinct().count())
        .sum(), g.ownerReferences(), "ownerReferences");
    Set<String> referenced = observed.values().stream()
        .flatMap(o -> o.owners().stream()).map(OwnerLink::uid)
        .filter(uid -> !observed.containsKey(uid)).collect(Collectors.toSet());
    assertEquals(referenced.size(), g.virtualSize(), "virtualSize");
    for (String x : UIDS) {
      Set<String> expected = observed.values().stream()
          .filter(o -> o.owners().stream().anyMatch(l -> l.uid().equals(x) && valid(o, l, observed)))
          .map(ObjectMetadata::uid).collect(Collectors.toSet());
      List<String> actual = g.dependentsOf(x).stream().map(ObjectMetadata::uid).toList();
      assertEquals(expected, new HashSet<>(actual), "dependentsOf " + x);
      assertEquals(expected.size(), actual.size(), "dependentsOf " + x + " has no duplicates");
      assertEquals(!expected.isEmpty(), g.hasDependents(x), "hasDependents " + x);
      assertEquals(observed.get(x), g.get(x), "get " + x);
      OwnerState state = !observed.containsKey(x) ? OwnerState.ABSENT
          : observed.get(x).beingDeleted() ? OwnerState.DELETING : OwnerState.SOLID;
      assertEquals(state, g.ownerState(TestObjects.link(x)), "ownerState " + x);
    }
  }

  @Property(tries = 300)
  void graphMatchesBruteForceAfterAnyHistory(@ForAll("histories") List<Event> events) {
    List<Object> ops = operations(events);
    assertMatchesBruteForce(apply(ops), finalState(ops));
  }

  @Property(tries = 300)
  void interleavingPerObjectHistoriesDoesNotChangeTheAnswers(
      @ForAll("histories") List<Event> events, @ForAll Random random) {
    List<Object> ops = operations(events);
    Map<String, ObjectMetadata> observed = finalState(ops);

    assertMatchesBruteForce(apply(interleave(ops, random)), observed);
  }

  @Property(tries = 300)
  void upsertsInAnyOrderKeepTheNewestVersion(@ForAll("upserts") List<Event> events, @ForAll Random random) {
    List<Object> ops = operations(events);
    Map<String, ObjectMetadata> newest = finalState(ops);
    List<Object> shuffled = new ArrayList<>(ops);
    Collections.shuffle(shuffled, random);

    assertMatchesBruteForce(apply(shuffled), newest);
  }
}
