package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * SPEC "In use": what keeps a used object from going. A user counts while it exists (being deleted
 * or not), except the object itself and the objects below it (its own deletion removes those before
 * it goes, so they are gone first anyway). Users that use each other, all being deleted, form a
 * ring: the hold is lifted for all of them at once and the ring named.
 */
public final class InUse {
  /** How many users, transitively, a ring is looked for among; past it the hold stays (safe). */
  static final int MAX_RING_SEARCH = 1_000;

  /**
   * @param users the users that keep the object, empty if none
   * @param ring when they keep it only by using each other, all being deleted: a closed path through
   *     the ring of users, the object first and last; empty otherwise
   */
  public record Hold(List<ObjectMetadata> users, List<ObjectRef> ring) {
    public static final Hold NONE = new Hold(List.of(), List.of());

    /** Whether the object must wait: users left, and no ring to release it. */
    public boolean holds() {
      return !users.isEmpty() && ring.isEmpty();
    }
  }

  private InUse() {}

  public static Hold of(DependencyGraph graph, ObjectMetadata used) {
    return of(graph, used, Set.of());
  }

  /**
   * @param going objects (uids) that a cascade under way will delete, counted as being deleted
   *     already: users that use each other inside one cascade go as a unit too
   */
  static Hold of(DependencyGraph graph, ObjectMetadata used, Set<String> going) {
    List<ObjectMetadata> users = users(graph, used);
    if (users.isEmpty()) {
      return Hold.NONE;
    }
    // a ring through it ends with it using the last one: one that uses nothing is in none
    boolean mayBeInARing = used.annotation(Names.USES) != null;
    return new Hold(users, mayBeInARing ? ring(graph, used, going) : List.of());
  }

  /**
   * The users that keep {@code used}: every observed user but itself, those below it, and those above
   * it being deleted (an owner that uses its own dependent, ownership and use in a ring: its cascade
   * is what deletes the dependent, and it can only go after it).
   */
  static List<ObjectMetadata> users(DependencyGraph graph, ObjectMetadata used) {
    List<ObjectMetadata> users = new ArrayList<>();
    for (ObjectMetadata user : graph.usersOf(used)) {
      if (!user.uid().equals(used.uid()) && !below(graph, user, used.uid())
          && !(user.beingDeleted() && below(graph, used, user.uid()))) {
        users.add(user);
      }
    }
    return users;
  }

  /** Whether {@code object} is {@code ancestor}'s dependent, directly or not (valid references only). */
  static boolean below(DependencyGraph graph, ObjectMetadata object, String ancestor) {
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(object));
    Set<String> seen = new HashSet<>(Set.of(object.uid()));
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      for (OwnerLink link : o.owners()) {
        if (graph.validity(o, link) != LinkValidity.VALID) {
          continue;
        }
        if (link.uid().equals(ancestor)) {
          return true;
        }
        ObjectMetadata owner = graph.get(link.uid());
        if (owner != null && seen.add(owner.uid())) {
          todo.push(owner);
        }
      }
    }
    return false;
  }

  /**
   * A closed path from {@code used} through its users, their users and so on back to it, when every
   * object that must go before it (its users, transitively) is being deleted and it is among them;
   * otherwise empty: a user that is not being deleted keeps it, and one that can go will.
   */
  private static List<ObjectRef> ring(DependencyGraph graph, ObjectMetadata used, Set<String> going) {
    Map<String, ObjectMetadata> before = new LinkedHashMap<>(); // everything that must go before it
    Map<String, List<String>> usersOf = new LinkedHashMap<>();
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(used));
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      if (!(o.beingDeleted() || going.contains(o.uid())) || before.size() > MAX_RING_SEARCH) {
        return List.of();
      }
      List<String> uids = new ArrayList<>();
      for (ObjectMetadata user : users(graph, o)) {
        uids.add(user.uid());
        if (before.putIfAbsent(user.uid(), user) == null) {
          todo.push(user);
        }
      }
      usersOf.put(o.uid(), uids);
    }
    if (!before.containsKey(used.uid())) {
      return List.of();
    }
    List<String> path = Ring.closedPath(used.uid(), before.keySet(), uid -> usersOf.getOrDefault(uid, List.of()));
    return path.stream().map(uid -> before.get(uid).ref()).toList();
  }
}
