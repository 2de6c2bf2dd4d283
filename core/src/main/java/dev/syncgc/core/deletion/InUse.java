package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.Propagation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * SPEC "In use": what keeps a used object from going. A user counts while it exists (being deleted
 * or not), except the object itself and the objects below it (its own deletion removes those before
 * it goes, so they are gone first anyway). Users that use each other, all going, form a ring: the
 * hold is lifted for all of them at once and the ring named. So do use and ownership together (a user
 * waits for its own dependents, one of which uses the object): a cycle of "goes first" none of whose
 * members can go first.
 */
public final class InUse {
  /** How many users, transitively, a ring is looked for among; past it the hold stays (safe). */
  static final int MAX_RING_SEARCH = 1_000;

  /**
   * @param users the users that keep the object, empty if none
   * @param ring when every user must itself wait for the object (using each other, or through
   *     dependents a user's deletion waits for), all going: a closed path through the cycle, the
   *     object first and last; empty otherwise
   */
  public record Hold(List<ObjectMetadata> users, List<ObjectRef> ring) {
    public static final Hold NONE = new Hold(List.of(), List.of());

    /** Whether the object must wait: users left, and no ring to release it. */
    public boolean holds() {
      return !users.isEmpty() && ring.isEmpty();
    }
  }

  private InUse() {}

  /**
   * Whether a deletion under way waits for the object's dependents, as far as its metadata tells
   * (the CLI's view): foreground deletion, or syncgc's finalizer with {@code Synchronous} recorded or
   * put there by a cascade.
   * The operator asks its settings in force instead ({@link DeletionPlanner}'s {@code cascades}).
   */
  static final Predicate<ObjectMetadata> CASCADES_BY_METADATA = o -> o.hasFinalizer(Names.FOREGROUND_FINALIZER)
      || o.hasFinalizer(Names.FINALIZER) && !o.hasFinalizer(Names.ORPHAN_FINALIZER)
      && (Propagation.SYNCHRONOUS.value().equals(o.annotation(Names.LAST_VALID_PROPAGATION))
      || o.annotation(Names.CASCADED_FROM) != null);

  public static Hold of(DependencyGraph graph, ObjectMetadata used) {
    return of(new Lookup(graph), used, Set.of(), CASCADES_BY_METADATA);
  }

  /**
   * One plan's look at usage: each object's users worked out once (a plan asks about the same objects
   * many times: every dependent, every step of a ring search, every blocker), by instance, as the
   * graph handed them out for this plan.
   */
  static final class Lookup {
    private final DependencyGraph graph;
    private final Map<ObjectMetadata, List<ObjectMetadata>> users = new IdentityHashMap<>();

    Lookup(DependencyGraph graph) {
      this.graph = graph;
    }

    DependencyGraph graph() {
      return graph;
    }

    List<ObjectMetadata> users(ObjectMetadata used) {
      List<ObjectMetadata> found = users.get(used);
      if (found == null) {
        found = InUse.users(graph, used);
        users.put(used, found);
      }
      return found;
    }
  }

  /**
   * @param going objects (uids) that a cascade under way will delete, counted as being deleted
   *     already: users that use each other inside one cascade go as a unit too
   * @param cascades whether an object being deleted deletes its dependents before it goes
   */
  static Hold of(Lookup lookup, ObjectMetadata used, Set<String> going, Predicate<ObjectMetadata> cascades) {
    List<ObjectMetadata> users = lookup.users(used);
    if (users.isEmpty()) {
      return Hold.NONE;
    }
    return new Hold(users, new RingSearch(lookup, going, cascades).ring(used, users));
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
   * What must go before what (a user before what it uses; the dependents of a deletion that waits for
   * them before it), searched from a used object back to itself: a closed path means none of them can
   * go first, so they go as a unit. Only while every object on the way goes (being deleted, or deleted
   * by a cascade under way): a user that stays keeps it, and one that can go will.
   */
  private static final class RingSearch {
    private final DependencyGraph graph;
    private final Lookup lookup;
    private final Set<String> going;
    private final Predicate<ObjectMetadata> cascades;
    private final Map<ObjectMetadata, Boolean> goes = new IdentityHashMap<>();

    RingSearch(Lookup lookup, Set<String> going, Predicate<ObjectMetadata> cascades) {
      this.graph = lookup.graph;
      this.lookup = lookup;
      this.going = going;
      this.cascades = cascades;
    }

    /**
     * A closed path from {@code used} through one of its users and back, when every user of it must
     * itself wait for it (each reaches it through what must go before what); otherwise empty: a user
     * that can go first goes first.
     */
    List<ObjectRef> ring(ObjectMetadata used, List<ObjectMetadata> users) {
      Map<String, ObjectMetadata> seen = new LinkedHashMap<>(); // everything that must go before its users
      Map<String, List<String>> firstOf = new LinkedHashMap<>();
      firstOf.put(used.uid(), users.stream().map(ObjectMetadata::uid).toList());
      Deque<ObjectMetadata> todo = new ArrayDeque<>();
      for (ObjectMetadata u : users) {
        seen.put(u.uid(), u);
        todo.push(u);
      }
      while (!todo.isEmpty()) {
        ObjectMetadata o = todo.pop();
        if (!goes(o, 0) || seen.size() > MAX_RING_SEARCH) {
          return List.of();
        }
        List<ObjectMetadata> first = new ArrayList<>(lookup.users(o));
        if (waitsForDependents(o)) {
          first.addAll(graph.dependentsOf(o.uid()));
        }
        List<String> uids = new ArrayList<>();
        for (ObjectMetadata f : first) {
          uids.add(f.uid());
          if (!f.uid().equals(used.uid()) && seen.putIfAbsent(f.uid(), f) == null) {
            todo.push(f);
          }
        }
        firstOf.put(o.uid(), uids);
      }
      Set<String> inside = new HashSet<>(seen.keySet());
      inside.add(used.uid());
      for (ObjectMetadata u : users) {
        if (!reaches(u.uid(), used.uid(), firstOf)) {
          return List.of(); // this user needs nothing of it gone first: it goes first
        }
      }
      List<String> path = Ring.closedPath(used.uid(), inside, uid -> firstOf.getOrDefault(uid, List.of()));
      seen.put(used.uid(), used);
      return path.stream().map(uid -> seen.get(uid).ref()).toList();
    }

    private static boolean reaches(String from, String to, Map<String, List<String>> firstOf) {
      Deque<String> todo = new ArrayDeque<>(List.of(from));
      Set<String> visited = new HashSet<>();
      while (!todo.isEmpty()) {
        String o = todo.pop();
        for (String next : firstOf.getOrDefault(o, List.of())) {
          if (next.equals(to)) {
            return true;
          }
          if (visited.add(next)) {
            todo.push(next);
          }
        }
      }
      return false;
    }

    /**
     * Whether the object goes: being deleted, in the cascade under way, or every owner of it goes and
     * waits for it (a cascade above it deletes it; an owner that stays keeps it).
     */
    private boolean goes(ObjectMetadata o, int depth) {
      if (o.beingDeleted() || going.contains(o.uid())) {
        return true;
      }
      Boolean known = goes.get(o);
      if (known != null) {
        return known;
      }
      goes.put(o, false); // a loop of owners decides nothing by itself
      boolean result = !o.owners().isEmpty() && depth < MAX_RING_SEARCH;
      for (OwnerLink link : o.owners()) {
        ObjectMetadata owner = graph.validity(o, link) == LinkValidity.VALID ? graph.get(link.uid()) : null;
        if (!result || owner == null || !goes(owner, depth + 1) || !waitsForDependents(owner)) {
          result = false;
          break;
        }
      }
      goes.put(o, result);
      return result;
    }

    /** A deletion under way waits for its dependents; one still to come does too (a cascade finalizes it first). */
    private boolean waitsForDependents(ObjectMetadata o) {
      return !o.beingDeleted() || cascades.test(o);
    }
  }
}
