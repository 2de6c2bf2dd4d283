package dev.syncgc.core.deletion.inuse;

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
   * The operator asks its settings in force instead ({@link dev.syncgc.core.deletion.DeletionPlanner}'s {@code cascades}).
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
  public static final class Lookup {
    final DependencyGraph graph;
    private final Predicate<ObjectMetadata> kept;
    private final Map<ObjectMetadata, List<ObjectMetadata>> users = new IdentityHashMap<>();

    Lookup(DependencyGraph graph) {
      this(graph, o -> false);
    }

    /** @param kept whether an object is kept itself (SPEC "Keep one dependent"): it stays, whatever goes above it */
    public Lookup(DependencyGraph graph, Predicate<ObjectMetadata> kept) {
      this.graph = graph;
      this.kept = kept;
    }

    DependencyGraph graph() {
      return graph;
    }

    Predicate<ObjectMetadata> kept() {
      return kept;
    }

    public List<ObjectMetadata> users(ObjectMetadata used) {
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
  public static Hold of(Lookup lookup, ObjectMetadata used, Set<ObjectRef> going, Predicate<ObjectMetadata> cascades) {
    return of(lookup, used, new UsersRing(lookup, going, cascades));
  }

  /** As above, the ring searched by {@code rings}: one for all the objects a plan asks about. */
  public static Hold of(Lookup lookup, ObjectMetadata used, UsersRing rings) {
    List<ObjectMetadata> users = lookup.users(used);
    if (users.isEmpty()) {
      return Hold.NONE;
    }
    return new Hold(users, rings.of(used, users));
  }

  /**
   * The users that keep {@code used}: every observed user but itself, those below it, and those above
   * it being deleted (an owner that uses its own dependent, ownership and use in a ring: its cascade
   * is what deletes the dependent, and it can only go after it).
   */
  public static List<ObjectMetadata> users(DependencyGraph graph, ObjectMetadata used) {
    List<ObjectMetadata> users = new ArrayList<>();
    for (ObjectMetadata user : graph.usersOf(used)) {
      if (!user.ref().equals(used.ref()) && !below(graph, user, used.ref())
          && !(user.beingDeleted() && below(graph, used, user.ref()))) {
        users.add(user);
      }
    }
    return users;
  }

  /** Whether {@code object} is {@code ancestor}'s dependent, directly or not (valid references only). */
  static boolean below(DependencyGraph graph, ObjectMetadata object, ObjectRef ancestor) {
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(object));
    Set<ObjectRef> seen = new HashSet<>(Set.of(object.ref()));
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      for (OwnerLink link : o.owners()) {
        if (graph.validity(o, link) != LinkValidity.VALID) {
          continue;
        }
        if (link.refersTo(ancestor)) {
          return true;
        }
        ObjectMetadata owner = graph.get(link);
        if (owner != null && seen.add(owner.ref())) {
          todo.push(owner);
        }
      }
    }
    return false;
  }
}
