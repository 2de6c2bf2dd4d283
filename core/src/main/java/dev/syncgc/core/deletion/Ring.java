package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.ClosedPath;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ring of an object: its strongly connected component in the owner → dependent graph, followed
 * through valid references only. It is found from the object's ancestors (what reaches it through
 * owner references), never from its subtree: the ring is the set of ancestors that the object also
 * reaches, and every edge among them is an owner reference of one of them. The work is bounded by
 * the ancestors (usually a short chain), so a wide owner costs nothing here. Public for the engine,
 * which looks up the unseen outside owners of a ring's members before deleting one of them.
 */
public final class Ring {
  private final String start;
  private final Map<String, ObjectMetadata> members;
  private final Map<String, List<String>> edges; // owner uid → dependent uids, among the members

  private Ring(String start, Map<String, ObjectMetadata> members, Map<String, List<String>> edges) {
    this.start = start;
    this.members = members;
    this.edges = edges;
  }

  public static Ring of(DependencyGraph graph, ObjectMetadata object) {
    // every object that reaches this one, with the edges among them (from their owner references)
    Map<String, ObjectMetadata> ancestors = new HashMap<>();
    Map<String, List<String>> edges = new HashMap<>();
    Deque<ObjectMetadata> todo = new ArrayDeque<>();
    todo.push(object);
    Map<String, ObjectMetadata> visited = new HashMap<>();
    visited.put(object.uid(), object);
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      for (OwnerLink link : o.owners()) {
        ObjectMetadata owner = graph.get(link.uid());
        if (owner == null || graph.validity(o, link) != LinkValidity.VALID) {
          continue;
        }
        List<String> out = edges.computeIfAbsent(owner.uid(), k -> new ArrayList<>(2));
        if (!out.contains(o.uid())) {
          out.add(o.uid());
        }
        ancestors.put(owner.uid(), owner);
        if (visited.putIfAbsent(owner.uid(), owner) == null) {
          todo.push(owner);
        }
      }
    }
    Map<String, ObjectMetadata> members = new LinkedHashMap<>();
    members.put(object.uid(), object);
    if (ancestors.containsKey(object.uid())) {
      // the ring: the ancestors this object reaches, through edges among ancestors only
      Deque<String> down = new ArrayDeque<>(List.of(object.uid()));
      while (!down.isEmpty()) {
        for (String next : edges.getOrDefault(down.pop(), List.of())) {
          if (ancestors.containsKey(next) && members.putIfAbsent(next, ancestors.get(next)) == null) {
            down.push(next);
          }
        }
      }
    }
    return new Ring(object.uid(), members, edges);
  }

  /** Two or more members, or one that owns itself; a diamond is no ring. */
  boolean isClosed() {
    return members.size() > 1 || successors(start).contains(start);
  }

  public boolean contains(String uid) {
    return members.containsKey(uid);
  }

  /** The member with this uid, as read when the ring was found; null if not a member. */
  ObjectMetadata member(String uid) {
    return members.get(uid);
  }

  public Collection<ObjectMetadata> members() {
    return members.values();
  }

  /** The members that {@code uid} owns. */
  List<String> successors(String uid) {
    return edges.getOrDefault(uid, List.of()).stream().filter(members::containsKey).toList();
  }

  /** The shortest closed path through the ring from {@code from}: first member repeated last. */
  List<ObjectRef> path(String from) {
    return ClosedPath.of(from, members.keySet(), this::successors).stream()
        .map(uid -> members.get(uid).ref()).toList();
  }
}
