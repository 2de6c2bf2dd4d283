package dev.syncgc.core.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/** Random digraphs (multi-edges and self-loops allowed) checked against brute-force reachability. */
class CyclesPropertiesTest {

  record Digraph(int n, List<Tuple2<Integer, Integer>> edges, List<Integer> roots) {
    Function<Integer, Collection<Integer>> successors() {
      Map<Integer, List<Integer>> out = new HashMap<>();
      for (Tuple2<Integer, Integer> e : edges) {
        out.computeIfAbsent(e.get1(), k -> new ArrayList<>()).add(e.get2());
      }
      return u -> out.getOrDefault(u, List.of());
    }

    /** Nodes reachable from u through one edge or more. */
    Set<Integer> reach(int u) {
      Function<Integer, Collection<Integer>> next = successors();
      Set<Integer> seen = new HashSet<>();
      Deque<Integer> todo = new ArrayDeque<>(next.apply(u));
      while (!todo.isEmpty()) {
        int v = todo.pop();
        if (seen.add(v)) {
          todo.addAll(next.apply(v));
        }
      }
      return seen;
    }

    Set<Integer> reachableFromRoots() {
      Set<Integer> all = new HashSet<>(roots);
      for (int r : roots) {
        all.addAll(reach(r));
      }
      return all;
    }
  }

  @Provide
  Arbitrary<Digraph> digraphs() {
    return Arbitraries.integers().between(1, 10).flatMap(n -> {
      Arbitrary<Integer> node = Arbitraries.integers().between(0, n - 1);
      return Combinators.combine(
          Combinators.combine(node, node).as(Tuple::of).list().ofMaxSize(3 * n),
          node.list().ofMinSize(1).ofMaxSize(3))
          .as((edges, roots) -> new Digraph(n, edges, roots));
    });
  }

  @Property(tries = 300)
  void componentsPartitionTheReachableNodes(@ForAll("digraphs") Digraph g) {
    List<List<Integer>> components = Cycles.components(g.roots(), g.successors());

    List<Integer> members = components.stream().flatMap(List::stream).toList();
    assertEquals(members.size(), new HashSet<>(members).size(), "no node in two components");
    assertEquals(g.reachableFromRoots(), new HashSet<>(members));
    assertTrue(components.stream().noneMatch(List::isEmpty));
  }

  @Property(tries = 300)
  void sameComponentIffMutuallyReachable(@ForAll("digraphs") Digraph g) {
    Map<Integer, Integer> componentIndex = new HashMap<>();
    List<List<Integer>> components = Cycles.components(g.roots(), g.successors());
    for (int i = 0; i < components.size(); i++) {
      for (int u : components.get(i)) {
        componentIndex.put(u, i);
      }
    }
    for (int u : componentIndex.keySet()) {
      for (int v : componentIndex.keySet()) {
        boolean mutual = u == v || (g.reach(u).contains(v) && g.reach(v).contains(u));
        assertEquals(mutual, componentIndex.get(u).equals(componentIndex.get(v)), u + " and " + v);
      }
    }
  }

  @Property(tries = 300)
  void componentsComeInReverseTopologicalOrder(@ForAll("digraphs") Digraph g) {
    Map<Integer, Integer> componentIndex = new HashMap<>();
    List<List<Integer>> components = Cycles.components(g.roots(), g.successors());
    for (int i = 0; i < components.size(); i++) {
      for (int u : components.get(i)) {
        componentIndex.put(u, i);
      }
    }
    for (Tuple2<Integer, Integer> e : g.edges()) {
      if (componentIndex.containsKey(e.get1())) {
        assertTrue(componentIndex.get(e.get2()) <= componentIndex.get(e.get1()), "edge " + e);
      }
    }
  }

  @Property(tries = 300)
  void isCycleIffMembersHaveClosedWalk(@ForAll("digraphs") Digraph g) {
    for (List<Integer> c : Cycles.components(g.roots(), g.successors())) {
      boolean closedWalk = g.reach(c.get(0)).contains(c.get(0));
      assertEquals(closedWalk, Cycles.isCycle(c, g.successors()), c.toString());
    }
  }

  @Property(tries = 300)
  void componentOfAgreesWithComponents(@ForAll("digraphs") Digraph g) {
    int start = g.roots().get(0);
    List<Integer> expected = Cycles.components(g.roots(), g.successors()).stream()
        .filter(c -> c.contains(start)).findFirst().orElseThrow();

    assertEquals(new HashSet<>(expected), new HashSet<>(Cycles.componentOf(start, g.successors())));
  }

  @Property(tries = 300)
  void pathThroughEveryCycleMemberIsClosedAndInside(@ForAll("digraphs") Digraph g) {
    Function<Integer, Collection<Integer>> next = g.successors();
    for (List<Integer> c : Cycles.components(g.roots(), next)) {
      if (!Cycles.isCycle(c, next)) {
        continue;
      }
      for (int start : c) {
        List<Integer> path = Cycles.pathThrough(start, c, next);
        assertTrue(path.size() >= 2, "path " + path);
        assertEquals(start, path.get(0));
        assertEquals(start, path.get(path.size() - 1));
        for (int i = 0; i + 1 < path.size(); i++) {
          assertTrue(next.apply(path.get(i)).contains(path.get(i + 1)), "edge in " + path);
          assertTrue(c.contains(path.get(i)), "inside: " + path);
        }
      }
    }
  }
}
