package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.ClosedPath;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The path a DependencyCycle Event names: the shortest closed path through the ring. */
class RingPathTest {

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

  @Test
  void pathThroughThreeRingIsClosedAndStaysInside() {
    var g = edges("a->b", "b->c", "c->a", "b->out");

    assertEquals(List.of("a", "b", "c", "a"), ClosedPath.of("a", List.of("a", "b", "c"), g));
  }

  @Test
  void pathTakesTheShortestWayBack() {
    var g = edges("a->b", "b->c", "c->d", "d->a", "b->a");

    assertEquals(List.of("a", "b", "a"), ClosedPath.of("a", List.of("a", "b", "c", "d"), g));
  }

  @Test
  void pathThroughASelfLoop() {
    assertEquals(List.of("a", "a"), ClosedPath.of("a", List.of("a"), edges("a->a")));
  }

  @Test
  void noPathOutsideARing() {
    assertEquals(List.of(), ClosedPath.of("a", List.of("a"), edges("a->b")));
  }
}
