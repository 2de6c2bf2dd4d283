package dev.syncgc.core.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * uids are opaque strings to the API: the graph keeps a canonical UUID as two longs and any other
 * form as given, and either way answers as a model that knows only the strings. Each universe mixes
 * UUIDs with their near misses (upper case, one character changed, cut, longer), which must stay
 * distinct objects, and arbitrary strings.
 */
class UidFormsTest {
  /** One object's upsert (owners: indices into the universe) or removal. */
  record Op(int uid, boolean remove, List<Integer> owners) {}

  @Provide
  Arbitrary<List<String>> universes() {
    Arbitrary<String> uuid = Arbitraries.longs().tuple2()
        .map(t -> new UUID(t.get1(), t.get2()).toString());
    Arbitrary<String> edge = Arbitraries.of("00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-8000-000000000000");
    Arbitrary<String> any = Arbitraries.strings().ofMaxLength(40);
    Arbitrary<String> hexish = Arbitraries.strings().withChars("0123456789abcdefABCDEF-g").ofLength(36);
    return Combinators.combine(uuid.list().ofMinSize(1).ofMaxSize(4), edge, any, hexish,
            Arbitraries.integers().between(0, 35), Arbitraries.chars().with('A', 'g', '-', 'F', ' ', '0'))
        .as((uuids, e, a, h, at, c) -> {
          Set<String> all = new LinkedHashSet<>(uuids);
          String u = uuids.get(0);
          all.add(e);
          all.add(a);
          all.add(h);
          all.add(u.toUpperCase());
          all.add(u.substring(0, at) + c + u.substring(at + 1));
          all.add(u.substring(0, at));
          all.add(u + c);
          return List.copyOf(all);
        });
  }

  @Provide
  Arbitrary<List<Op>> histories() {
    Arbitrary<Integer> index = Arbitraries.integers().between(0, 11);
    return Combinators.combine(index, Arbitraries.integers().between(0, 9), index.list().ofMaxSize(3))
        .as((uid, roll, owners) -> new Op(uid, roll == 0, owners))
        .list().ofMinSize(4).ofMaxSize(40);
  }

  @Property(tries = 500)
  void everyFormOfUidGoesThroughTheGraphUnchanged(@ForAll("universes") List<String> universe,
      @ForAll("histories") List<Op> history) {
    DependencyGraph graph = TestObjects.graph();
    Map<String, List<String>> observed = new HashMap<>(); // the model: uid -> owner uids named
    Set<String> removed = new HashSet<>();
    long rv = 0;
    for (Op op : history) {
      String uid = fresh(universe.get(op.uid() % universe.size()));
      Set<String> affected;
      Set<String> expected = new LinkedHashSet<>(observed.getOrDefault(uid, List.of()));
      if (op.remove()) {
        affected = graph.remove(uid);
        if (observed.remove(uid) == null) {
          expected.clear();
        }
        removed.add(uid);
      } else {
        List<String> owners = new ArrayList<>();
        TestObjects.Builder b = TestObjects.obj(uid).rv(++rv);
        for (int o : op.owners()) {
          String owner = fresh(universe.get(o % universe.size()));
          owners.add(owner);
          b.ownedBy(owner);
        }
        affected = graph.upsert(b.build());
        if (removed.contains(uid)) {
          expected.clear();
        } else {
          observed.put(uid, owners);
          expected.addAll(owners);
        }
      }
      assertEquals(expected, affected, op.toString());
    }
    for (String uid : universe) {
      Statistics.label("uid form").collect(form(uid));
      assertAnswers(graph, uid, observed, removed);
    }
    Statistics.label("observed").collect(observed.size());
  }

  private static void assertAnswers(DependencyGraph graph, String uid, Map<String, List<String>> observed,
      Set<String> removed) {
    assertEquals(removed.contains(uid), graph.seenDeleted(uid), uid);
    ObjectMetadata held = graph.get(fresh(uid));
    if (!observed.containsKey(uid)) {
      assertNull(held, uid);
    } else {
      assertEquals(uid, held.uid());
      assertEquals(observed.get(uid), held.owners().stream().map(OwnerLink::uid).toList());
      ObjectRef same = new ObjectRef("v1", "Other", null, "other", fresh(uid));
      assertEquals(same, held.ref());
      assertEquals(same.hashCode(), held.ref().hashCode());
    }
    Set<String> dependents = new HashSet<>();
    observed.forEach((d, owners) -> {
      if (owners.contains(uid)) {
        dependents.add(d);
      }
    });
    assertEquals(dependents, uids(graph.dependentsOf(fresh(uid))), uid);
    assertEquals(dependents, uids(graph.referencing(fresh(uid))), uid);
    assertEquals(!dependents.isEmpty(), graph.hasDependents(fresh(uid)), uid);
    for (String other : observed.keySet()) {
      if (!other.equals(uid)) {
        assertNotEquals(graph.get(other).ref(), new ObjectRef("v1", "Widget", null, "x", uid));
      }
    }
  }

  private static Set<String> uids(List<ObjectMetadata> objects) {
    Set<String> uids = new HashSet<>();
    objects.forEach(o -> uids.add(o.uid()));
    return uids;
  }

  /** A new instance of the same text, as each watch event brings. */
  private static String fresh(String uid) {
    return new String(uid);
  }

  private static String form(String uid) {
    if (uid.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
      return "canonical UUID";
    }
    if (uid.matches("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
      return "upper-case UUID";
    }
    return uid.isBlank() ? "empty or blank" : uid.length() == 36 ? "36 chars, not a UUID" : "other";
  }
}
