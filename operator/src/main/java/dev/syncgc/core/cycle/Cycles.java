package dev.syncgc.core.cycle;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Exact cycle detection: strongly connected components (Tarjan's algorithm, iterative so that a
 * chain of any length cannot overflow the stack). A component is a cycle when it has two or more
 * members, or one member with an edge to itself; a diamond has no cycle.
 */
public final class Cycles {
  private Cycles() {}

  /** The strongly connected components reachable from {@code roots}, in reverse topological order. */
  public static <T> List<List<T>> components(
      Collection<T> roots, Function<T, ? extends Collection<T>> successors) {
    return new Tarjan<>(successors).run(roots);
  }

  /** Whether a component returned by {@link #components} is a cycle. */
  public static <T> boolean isCycle(List<T> component, Function<T, ? extends Collection<T>> successors) {
    if (component.size() > 1) {
      return true;
    }
    T only = component.get(0);
    return successors.apply(only).contains(only);
  }

  /** The component of {@code start}, or a singleton list if it is in none larger. */
  public static <T> List<T> componentOf(T start, Function<T, ? extends Collection<T>> successors) {
    for (List<T> component : components(List.of(start), successors)) {
      if (component.contains(start)) {
        return component;
      }
    }
    return List.of(start);
  }

  /**
   * A closed path through a cycle, starting and ending at {@code start}: the shortest way back to
   * {@code start} staying inside {@code component}. Empty if there is none.
   */
  public static <T> List<T> pathThrough(
      T start, Collection<T> component, Function<T, ? extends Collection<T>> successors) {
    Set<T> inside = new HashSet<>(component);
    Map<T, T> parent = new HashMap<>();
    Deque<T> queue = new ArrayDeque<>();
    queue.add(start);
    Set<T> visited = new HashSet<>();
    while (!queue.isEmpty()) {
      T current = queue.poll();
      for (T next : successors.apply(current)) {
        if (!inside.contains(next)) {
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

  private static final class Tarjan<T> {
    private final Function<T, ? extends Collection<T>> successors;
    private final Map<T, Integer> index = new HashMap<>();
    private final Map<T, Integer> low = new HashMap<>();
    private final Set<T> onStack = new HashSet<>();
    private final Deque<T> stack = new ArrayDeque<>();
    private final List<List<T>> result = new ArrayList<>();
    private int counter;

    Tarjan(Function<T, ? extends Collection<T>> successors) {
      this.successors = successors;
    }

    private record Frame<T>(T node, Iterator<T> next) {}

    List<List<T>> run(Collection<T> roots) {
      for (T root : roots) {
        if (!index.containsKey(root)) {
          visit(root);
        }
      }
      return result;
    }

    private void visit(T root) {
      Deque<Frame<T>> frames = new ArrayDeque<>();
      enter(root, frames);
      while (!frames.isEmpty()) {
        Frame<T> frame = frames.peek();
        if (frame.next().hasNext()) {
          T next = frame.next().next();
          if (!index.containsKey(next)) {
            enter(next, frames);
          } else if (onStack.contains(next)) {
            low.put(frame.node(), Math.min(low.get(frame.node()), index.get(next)));
          }
          continue;
        }
        frames.pop();
        T node = frame.node();
        if (!frames.isEmpty()) {
          T parent = frames.peek().node();
          low.put(parent, Math.min(low.get(parent), low.get(node)));
        }
        if (low.get(node).equals(index.get(node))) {
          List<T> component = new ArrayList<>();
          T member;
          do {
            member = stack.pop();
            onStack.remove(member);
            component.add(member);
          } while (!member.equals(node));
          result.add(component);
        }
      }
    }

    private void enter(T node, Deque<Frame<T>> frames) {
      index.put(node, counter);
      low.put(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push(new Frame<>(node, List.copyOf(successors.apply(node)).iterator()));
    }
  }
}
