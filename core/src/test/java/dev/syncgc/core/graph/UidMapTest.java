package dev.syncgc.core.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.syncgc.core.model.Uids;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

class UidMapTest {
  /** Distinct strings with one hash code: every one of them probes from the same slot. */
  private static final List<String> COLLIDING = List.of("Aa", "BB", "AaAa", "AaBB", "BBAa", "BBBB");

  @Test
  void keysOfOneHashAreAllFoundAndRemovingOneKeepsTheOthersReachable() {
    assertEquals("Aa".hashCode(), "BB".hashCode());
    assertEquals("AaAa".hashCode(), "BBBB".hashCode());
    UidMap map = new UidMap();
    for (String k : COLLIDING) {
      map.add(node(k));
    }
    assertEquals("AaBB", map.remove(0, 0, "AaBB").opaque); // in the middle of the probe run: the rest shift back
    assertNull(map.get(0, 0, "AaBB"));
    for (String k : COLLIDING) {
      assertEquals(k.equals("AaBB") ? null : k, opaque(map.get(0, 0, k)), k);
    }
    assertEquals(COLLIDING.size() - 1, map.size());
  }

  @Test
  void growsPastItsInitialCapacityAndKeepsEveryEntry() {
    UidMap map = new UidMap();
    for (int i = 0; i < 10_000; i++) {
      map.add(node(new UUID(i, i).toString()));
      map.add(node("uid-" + i));
    }
    assertEquals(20_000, map.size());
    for (int i = 0; i < 10_000; i++) {
      assertEquals(i, map.get(i, i, null).low);
      assertEquals("uid-" + i, map.get(0, 0, "uid-" + i).opaque);
    }
  }

  @Test
  void aCanonicalUuidAndItsUpperCaseAreTwoKeys() {
    UidMap map = new UidMap();
    String uid = "0f8b3c9e-1d2a-4b5c-8d6e-7f8091a2b3c4";
    Node lower = node(uid);
    Node upper = node(uid.toUpperCase());
    map.add(lower);
    map.add(upper);
    assertSame(lower, map.get(Uids.high(uid), Uids.low(uid), null));
    assertSame(upper, map.get(0, 0, uid.toUpperCase()));
  }

  @Property(tries = 300)
  void answersAsAHashMapDoes(@ForAll("operations") List<int[]> ops) {
    UidMap map = new UidMap();
    Map<String, Node> model = new HashMap<>();
    for (int[] op : ops) {
      String key = key(op[1]);
      Node node = node(key);
      switch (op[0]) {
        case 0 -> {
          model.put(key, node);
          map.add(node);
        }
        default -> assertSame(model.remove(key), map.remove(node.high, node.low, node.opaque));
      }
      assertEquals(model.size(), map.size());
    }
    for (Map.Entry<String, Node> e : model.entrySet()) {
      Node n = e.getValue();
      assertSame(n, map.get(n.high, n.low, n.opaque), e.getKey());
    }
    List<Node> values = new ArrayList<>();
    map.forEach(values::add);
    assertEquals(model.size(), values.size());
    assertEquals(new HashSet<>(model.values()), new HashSet<>(values));
    Statistics.label("entries left").collect(model.size() < 8 ? "<8" : model.size() < 32 ? "<32" : ">=32");
  }

  @Provide
  Arbitrary<List<int[]>> operations() {
    // adds and removals over 90 keys, 60 of them opaque and many of one hash (long probe runs,
    // removals inside them), 30 canonical UUIDs differing in few bits
    return Arbitraries.integers().between(0, 1).flatMap(op -> Arbitraries.integers().between(0, 89)
        .map(key -> new int[] {op, key})).list().ofMaxSize(400);
  }

  private static String key(int i) {
    return i < 60 ? COLLIDING.get(i % COLLIDING.size()) + (i / COLLIDING.size())
        : new UUID(i % 3, i).toString();
  }

  /** A node of {@code uid} as the graph makes it. */
  private static Node node(String uid) {
    return Uids.canonical(uid) ? new Node(Uids.high(uid), Uids.low(uid), null) : new Node(0, 0, uid);
  }

  private static String opaque(Node node) {
    return node == null ? null : node.opaque;
  }
}
