package dev.syncgc.e2e.soak;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** A depth-first walk of the model's small graphs: owners to dependents, users to what they use, steps. */
final class Walk {
  private Walk() {}

  /**
   * What {@code from} reaches through {@code next} in one step or more, in the order the walk first
   * meets it: {@code from} itself only if it lies on a cycle.
   */
  static <T> Set<T> from(T from, Function<T, ? extends Collection<T>> next) {
    Set<T> seen = new LinkedHashSet<>();
    Deque<T> todo = new ArrayDeque<>(List.of(from));
    while (!todo.isEmpty()) {
      for (T n : next.apply(todo.pop())) {
        if (seen.add(n)) {
          todo.push(n);
        }
      }
    }
    return seen;
  }
}
