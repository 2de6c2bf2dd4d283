package dev.syncgc.core.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    UidMap<String> map = new UidMap<>();
    for (String k : COLLIDING) {
      map.put(k, "v" + k);
    }
    assertEquals("vAaBB", map.remove("AaBB")); // in the middle of the probe run: the rest shift back
    assertNull(map.get("AaBB"));
    for (String k : COLLIDING) {
      assertEquals(k.equals("AaBB") ? null : "v" + k, map.get(k), k);
    }
    assertEquals(COLLIDING.size() - 1, map.size());
  }

  @Test
  void growsPastItsInitialCapacityAndKeepsEveryEntry() {
    UidMap<Integer> map = new UidMap<>();
    for (int i = 0; i < 10_000; i++) {
      assertNull(map.put("uid-" + i, i));
    }
    assertEquals(10_000, map.size());
    for (int i = 0; i < 10_000; i++) {
      assertEquals(i, map.get("uid-" + i));
    }
  }

  @Test
  void theStoredKeyIsTheFirstInstanceGiven() {
    UidMap<Integer> map = new UidMap<>();
    String first = new String("u1");
    map.put(first, 1);
    map.put(new String("u1"), 2);
    assertSame(first, map.key(new String("u1")));
    assertNull(map.key("u2"));
  }

  @Property(tries = 300)
  void answersAsAHashMapDoes(@ForAll("operations") List<int[]> ops) {
    UidMap<Integer> map = new UidMap<>();
    Map<String, Integer> model = new HashMap<>();
    for (int[] op : ops) {
      String key = COLLIDING.get(op[1] % COLLIDING.size()) + (op[1] / COLLIDING.size());
      switch (op[0]) {
        case 0 -> assertEquals(model.put(key, op[2]), map.put(key, op[2]));
        case 1 -> assertEquals(model.remove(key), map.remove(key));
        default -> assertEquals(model.computeIfAbsent(key, k -> op[2]), map.computeIfAbsent(key, k -> op[2]));
      }
      assertEquals(model.size(), map.size());
    }
    for (String key : model.keySet()) {
      assertEquals(model.get(key), map.get(key), key);
    }
    List<Integer> values = new ArrayList<>();
    map.forEach(values::add);
    assertEquals(model.values().stream().sorted().toList(), values.stream().sorted().toList());
    Statistics.label("entries left").collect(model.size() < 8 ? "<8" : model.size() < 32 ? "<32" : ">=32");
  }

  @Provide
  Arbitrary<List<int[]>> operations() {
    // 3 kinds of operation over 60 keys, many of one hash: long probe runs, removals inside them
    return Arbitraries.integers().between(0, 2).flatMap(op -> Arbitraries.integers().between(0, 59)
        .flatMap(key -> Arbitraries.integers().between(0, 1000).map(v -> new int[] {op, key, v})))
        .list().ofMaxSize(400);
  }
}
