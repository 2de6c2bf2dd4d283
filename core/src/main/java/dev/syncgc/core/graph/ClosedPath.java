package dev.syncgc.core.graph;

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

/** The shortest cycle through one node of a directed graph given by its successors: rings of ownership and of use. */
public final class ClosedPath {
  private ClosedPath() {}

  /**
   * A closed path through {@code start}: the shortest way back to it staying inside {@code inside}
   * (breadth first), {@code start} first and last. Empty if there is none.
   */
  public static <T> List<T> of(T start, Collection<T> inside, Function<T, ? extends Collection<T>> successors) {
    Set<T> allowed = new HashSet<>(inside);
    Map<T, T> parent = new HashMap<>();
    Deque<T> queue = new ArrayDeque<>(List.of(start));
    Set<T> visited = new HashSet<>();
    while (!queue.isEmpty()) {
      T current = queue.poll();
      for (T next : successors.apply(current)) {
        if (!allowed.contains(next)) {
          continue;
        }
        if (next.equals(start)) {
          List<T> path = new ArrayList<>();
          for (T at = current; !at.equals(start); at = parent.get(at)) {
            path.add(0, at);
          }
          path.add(0, start);
          path.add(start);
          return path;
        }
        if (visited.add(next)) {
          parent.put(next, current);
          queue.add(next);
        }
      }
    }
    return List.of();
  }
}
