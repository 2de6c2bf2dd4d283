package dev.syncgc.core.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CyclesTest {

  /** Edges given as "from->to" strings. */
  private static Function<String, Collection<String>> edges(String... edges) {
    Map<String, List<String>> out = new HashMap<>();
    for (String e : edges) {
      String[] ends = e.split("->");
      out.merge(ends[0], List.of(ends[1]),
          (a, b) -> java.util.stream.Stream.concat(a.stream(), b.stream()).toList());
    }
    return n -> out.getOrDefault(n, List.of());
  }

  private static Set<String> componentOf(String start, Function<String, Collection<String>> g) {
    return new HashSet<>(Cycles.componentOf(start, g));
  }

  /** first == last == start, each step an edge, every element inside the component. */
  private static void assertClosedPath(
      String start, List<String> path, Collection<String> component, Function<String, Collection<String>> g) {
    assertTrue(path.size() >= 2, "path " + path);
    assertEquals(start, path.get(0));
    assertEquals(start, path.get(path.size() - 1));
    for (int i = 0; i + 1 < path.size(); i++) {
      assertTrue(g.apply(path.get(i)).contains(path.get(i + 1)), "edge " + path.get(i) + "->" + path.get(i + 1));
      assertTrue(component.contains(path.get(i)), path.get(i) + " inside");
    }
  }

  @Test
  void twoCycleIsOneComponentAndACycle() {
    var g = edges("a->b", "b->a");

    assertEquals(Set.of("a", "b"), componentOf("a", g));
    assertTrue(Cycles.isCycle(Cycles.componentOf("a", g), g));
  }

  @Test
  void threeCycleIsOneComponentAndACycle() {
    var g = edges("a->b", "b->c", "c->a");

    assertEquals(Set.of("a", "b", "c"), componentOf("b", g));
    assertTrue(Cycles.isCycle(Cycles.componentOf("b", g), g));
  }

  @Test
  void selfLoopIsACycle() {
    var g = edges("a->a", "a->b");

    assertEquals(List.of("a"), Cycles.componentOf("a", g));
    assertTrue(Cycles.isCycle(List.of("a"), g));
    assertFalse(Cycles.isCycle(List.of("b"), g));
  }

  @Test
  void diamondHasNoCycle() {
    var g = edges("top->left", "top->right", "left->bottom", "right->bottom");

    List<List<String>> components = Cycles.components(List.of("top"), g);

    assertEquals(4, components.size());
    for (List<String> c : components) {
      assertFalse(Cycles.isCycle(c, g), c.toString());
    }
  }

  @Test
  void cycleUnderLargerTreeIsFoundExactly() {
    var g = edges("root->x", "root->y", "x->a", "a->b", "b->c", "c->a", "c->leaf", "y->leaf");

    List<List<String>> cycles = Cycles.components(List.of("root"), g).stream()
        .filter(c -> Cycles.isCycle(c, g)).toList();

    assertEquals(1, cycles.size());
    assertEquals(Set.of("a", "b", "c"), new HashSet<>(cycles.get(0)));
    assertEquals(List.of("x"), Cycles.componentOf("x", g));
  }

  @Test
  void componentsComeInReverseTopologicalOrder() {
    var g = edges("a->b", "b->c");

    assertEquals(List.of(List.of("c"), List.of("b"), List.of("a")), Cycles.components(List.of("a"), g));
  }

  @Test
  void pathThroughThreeCycleIsClosed() {
    var g = edges("a->b", "b->c", "c->a", "b->out");
    List<String> component = Cycles.componentOf("a", g);

    List<String> path = Cycles.pathThrough("a", component, g);

    assertEquals(List.of("a", "b", "c", "a"), path);
    assertClosedPath("a", path, component, g);
  }

  @Test
  void pathThroughTakesShortestWayBack() {
    var g = edges("a->b", "b->c", "c->d", "d->a", "b->a");

    assertEquals(List.of("a", "b", "a"), Cycles.pathThrough("a", Cycles.componentOf("a", g), g));
  }

  @Test
  void pathThroughSelfLoop() {
    var g = edges("a->a");

    assertEquals(List.of("a", "a"), Cycles.pathThrough("a", List.of("a"), g));
  }

  @Test
  void pathThroughNonCycleIsEmpty() {
    var g = edges("a->b");

    assertEquals(List.of(), Cycles.pathThrough("a", List.of("a"), g));
  }

  @Test
  void longChainDoesNotOverflowTheStack() {
    int n = 100_000;
    Function<Integer, Collection<Integer>> chain = i -> i + 1 < n ? List.of(i + 1) : List.of();

    List<List<Integer>> components = Cycles.components(List.of(0), chain);

    assertEquals(n, components.size());
    assertEquals(List.of(n - 1), components.get(0));
  }

  @Test
  void longRingIsOneCycle() {
    int n = 100_000;
    Function<Integer, Collection<Integer>> ring = i -> List.of((i + 1) % n);

    List<List<Integer>> components = Cycles.components(List.of(0), ring);

    assertEquals(1, components.size());
    assertEquals(n, components.get(0).size());
  }
}
