package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DeletingOwner;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.graph.OwnerState;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * Whether a dependent of an owner under synchronous deletion is kept by another owner (SPEC
 * "Synchronous deletion", step 2). One instance serves one plan: rings are worked out once.
 */
public final class Keepers {
  /** What the dependent's other owners do for it. */
  enum Keeper {
    /** Nothing: it goes with the owner. */
    NONE,
    /** A solid owner keeps it: only the reference to the owner is removed. */
    SOLID,
    /** Kept only by owners that this cascade is about to delete: neither released nor deleted yet. */
    DOOMED,
    /** Kept itself (SPEC "Keep one dependent"): only the reference to the owner is removed. */
    KEPT
  }

  private final DependencyGraph graph;
  private final ToIntFunction<ObjectMetadata> waveOf;
  private final Predicate<ObjectMetadata> cascades;
  private final Predicate<ObjectMetadata> kept;
  private final Map<String, Support> supportByMember = new HashMap<>();

  /** @param kept whether an object is kept itself: it survives every cascade through it */
  Keepers(DependencyGraph graph, ToIntFunction<ObjectMetadata> waveOf, Predicate<ObjectMetadata> cascades,
      Predicate<ObjectMetadata> kept) {
    this.graph = graph;
    this.waveOf = waveOf;
    this.cascades = cascades;
    this.kept = kept;
  }

  /** Whether {@code d} is kept itself (SPEC "Keep one dependent"). */
  boolean kept(ObjectMetadata d) {
    return kept.test(d);
  }

  /** What keeps {@code d} besides the owner {@code ownerUid}: {@link Keeper#KEPT} first, if it is kept itself. */
  Keeper otherKeeper(ObjectMetadata d, String ownerUid) {
    if (kept.test(d)) {
      return Keeper.KEPT;
    }
    Keeper result = Keeper.NONE;
    Ring ring = null;
    for (OwnerLink link : d.owners()) {
      if (link.uid().equals(ownerUid)) {
        continue;
      }
      Keeper k = linkKeeper(d, link);
      ObjectMetadata other = graph.get(link.uid());
      if (k != Keeper.NONE && other != null && graph.validity(d, link) == LinkValidity.VALID) {
        ring = ring != null ? ring : Ring.of(graph, d);
        if (ring.contains(other.uid())) {
          // a neighbour in d's own ring keeps it only if the ring as a whole is kept
          k = support(ring).of(other.uid());
        }
      }
      if (k == Keeper.SOLID) {
        return Keeper.SOLID;
      }
      if (k == Keeper.DOOMED) {
        result = Keeper.DOOMED;
      }
    }
    return result;
  }

  /**
   * What one reference does for the object, rings aside. A reference Kubernetes treats as invalid is
   * never followed, and it keeps its object (SPEC "Coexistence with Kubernetes"): an owner of a kind
   * the API server does not serve cannot be checked, so, as the built-in collector does, it is not
   * presumed gone; a cluster-scoped object naming a namespaced owner is never collected by the
   * built-in collector at all; and an object naming an owner in another namespace is left to it. A
   * solid owner that the same cascade is about to delete (a diamond) is {@link Keeper#DOOMED}.
   */
  private Keeper linkKeeper(ObjectMetadata d, OwnerLink link) {
    if (graph.validity(d, link) != LinkValidity.VALID) {
      return Keeper.SOLID;
    }
    if (!solid(link)) {
      return Keeper.NONE;
    }
    ObjectMetadata other = graph.get(link.uid());
    return other != null && !other.beingDeleted() && doomed(other) ? Keeper.DOOMED : Keeper.SOLID;
  }

  /**
   * Whether the owner a reference names keeps its dependents, as the built-in collector's
   * {@code classifyReferences} judges (SPEC "Synchronous deletion", step 2): it exists with the
   * referenced uid (or is of a kind syncgc does not watch, so cannot be seen gone) and is not being
   * deleted in a mode that deletes its dependents. One being deleted otherwise (held by another
   * controller's finalizer, by the {@code orphan} finalizer, by its grace period, by an Orphan hand-over)
   * is solid while it exists: its controller may still need them, and an orphaning keeps them for good.
   */
  private boolean solid(OwnerLink link) {
    OwnerState state = graph.ownerState(link);
    if (state != OwnerState.DELETING) {
      return state.solid();
    }
    ObjectMetadata owner = graph.get(link.uid());
    return owner != null && !deletesDependents(owner);
  }

  /**
   * Whether an owner being deleted deletes its dependents: foreground deletion (the built-in
   * collector's), or syncgc's own cascade.
   */
  private boolean deletesDependents(ObjectMetadata owner) {
    return DeletingOwner.deletesDependents(owner, cascades);
  }

  private boolean cascadesNow(ObjectMetadata owner) {
    return DeletingOwner.cascadesNow(owner, cascades);
  }

  /**
   * An object not yet being deleted, with no solid owner of its own and no invalid reference, that a
   * synchronous cascade above it is about to delete: one not holding it back for a higher deletion
   * wave (while it is held back, it counts as solid, so nothing waits for it in a circle).
   */
  private boolean doomed(ObjectMetadata object) {
    if (kept.test(object)) {
      return false; // it survives the cascade, so it keeps what it owns
    }
    boolean underCascade = false;
    for (OwnerLink link : object.owners()) {
      if (graph.validity(object, link) != LinkValidity.VALID) {
        return false; // an invalid reference keeps it, whatever the cascade above does
      }
      if (solid(link)) {
        return false;
      }
      ObjectMetadata owner = graph.get(link.uid());
      if (graph.ownerState(link) == OwnerState.DELETING && owner != null && cascadesNow(owner)
          && !heldBackByWave(owner, object)) {
        underCascade = true;
      }
    }
    return underCascade;
  }

  private boolean heldBackByWave(ObjectMetadata owner, ObjectMetadata object) {
    int wave = waveOf.applyAsInt(object);
    return graph.dependentsOf(owner.uid()).stream().anyMatch(s -> waveOf.applyAsInt(s) > wave);
  }

  private Support support(Ring ring) {
    Support s = supportByMember.get(ring.members().iterator().next().uid());
    if (s == null) {
      s = new Support(ring);
      for (ObjectMetadata m : ring.members()) {
        supportByMember.put(m.uid(), s);
      }
    }
    return s;
  }

  /**
   * Which members of a ring are kept from outside: support enters at a member that is not being
   * deleted and is kept itself, or has a solid owner outside the ring or an invalid reference (no cascade deletes it),
   * and flows along the ring to members not being deleted. Support from owners the cascade is about to delete is only {@link Keeper#DOOMED}.
   */
  private final class Support {
    private final Set<String> kept;
    private final Set<String> keptOrDoomed;

    Support(Ring ring) {
      Set<String> solidEntries = new HashSet<>();
      Set<String> doomedEntries = new HashSet<>();
      for (ObjectMetadata m : ring.members()) {
        if (m.beingDeleted()) {
          continue;
        }
        if (Keepers.this.kept.test(m)) {
          solidEntries.add(m.uid()); // no cascade deletes it: it keeps its ring as a solid owner outside would
          continue;
        }
        for (OwnerLink link : m.owners()) {
          if (ring.contains(link.uid()) && graph.validity(m, link) == LinkValidity.VALID) {
            continue; // an invalid reference keeps its member even when it names the ring itself
          }
          Keeper k = linkKeeper(m, link);
          if (k == Keeper.SOLID) {
            solidEntries.add(m.uid());
          } else if (k == Keeper.DOOMED) {
            doomedEntries.add(m.uid());
          }
        }
      }
      kept = flow(ring, solidEntries);
      doomedEntries.addAll(solidEntries);
      keptOrDoomed = flow(ring, doomedEntries);
    }

    Keeper of(String member) {
      return kept.contains(member) ? Keeper.SOLID
          : keptOrDoomed.contains(member) ? Keeper.DOOMED : Keeper.NONE;
    }

    private Set<String> flow(Ring ring, Set<String> entries) {
      Set<String> reached = new HashSet<>(entries);
      Deque<String> todo = new ArrayDeque<>(entries);
      while (!todo.isEmpty()) {
        for (String next : ring.successors(todo.pop())) {
          ObjectMetadata m = ring.member(next);
          if (m != null && !m.beingDeleted() && reached.add(next)) {
            todo.push(next);
          }
        }
      }
      return reached;
    }
  }
}
