package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.http.GraphDump;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The graph by identity as the operator serves it ({@code /debug/graph}, {@link GraphDump}) and the soak
 * reads it, on one real DependencyGraph, and what the comparison with a LIST catches.
 */
class GraphCheckTest {

  private static ObjectMetadata object(String uid, String... owners) {
    return TestObjects.obj(uid).kind("test.syncgc.dev/v1", "Widget").namespace("ns").name("name-" + uid)
        .ownedBy(Arrays.stream(owners).map(o -> new OwnerLink(o, "test.syncgc.dev/v1", "Widget", "name-" + o))
            .toArray(OwnerLink[]::new)).build();
  }

  @Test
  void readsEveryObservedObjectWithItsOwnersAndLeavesVirtualNodesOut() {
    DependencyGraph graph = new DependencyGraph(new KindInfo() {
      @Override
      public Scope scope(OwnerLink link) {
        return Scope.NAMESPACED;
      }

      @Override
      public boolean tracked(OwnerLink link) {
        return true;
      }
    });
    graph.upsert(object("u-root"));
    graph.upsert(object("u-a", "u-root"));
    graph.upsert(object("u-b", "u-root", "u-a", "u-unseen")); // three owners: a ListN, not a List12
    graph.upsert(object("u-c", "u-b"));
    assertEquals(Map.of("u-root", Set.of(), "u-a", Set.of("u-root"), "u-b", Set.of("u-root", "u-a", "u-unseen"),
        "u-c", Set.of("u-b")), GraphCheck.parse(GraphDump.lines(graph.snapshot())),
        "u-unseen is a virtual node: named, not observed");
  }

  @Test
  void equalCountsAreNotEnough() {
    Map<String, Set<String>> listed = Map.of("a", Set.of(), "b", Set.of("a"), "c", Set.of("b"));
    assertEquals(null, GraphCheck.difference(Map.of("a", Set.of(), "b", Set.of("a"), "c", Set.of("b")), listed));
    String swapped = GraphCheck.difference(Map.of("a", Set.of(), "b", Set.of("a"), "gone", Set.of("b")), listed);
    assertEquals("graph 3 objects, LIST 3; not in the graph: 1 [c]; in the graph, not listed: 1 [gone]; other"
        + " owners: 0", swapped, "a deleted object kept and a live one lost: same count");
    String moved = GraphCheck.difference(Map.of("a", Set.of("b"), "b", Set.of("a"), "c", Set.of()), listed);
    assertEquals(true, moved.contains("other owners: 2"), "same number of references, not the same: " + moved);
  }
}
