package dev.syncgc.e2e.soak;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The round's objects as a graph of owners and dependents (through valid references) for the
 * {@link Oracle}: what lies below what, and what each way of deleting a root takes with it.
 */
final class Ownership {
  private final Collection<SoakObject> universe;
  private final Map<SoakObject, List<SoakObject>> dependents = new HashMap<>();

  /** @param universe every object of the round (owners outside a scenario included) */
  Ownership(Collection<SoakObject> universe) {
    this.universe = universe;
    for (SoakObject o : universe) {
      for (SoakObject owner : o.owners) {
        dependents.computeIfAbsent(owner, k -> new ArrayList<>()).add(o);
      }
    }
  }

  /** The objects naming {@code owner} by a valid reference. */
  List<SoakObject> dependents(SoakObject owner) {
    return dependents.getOrDefault(owner, List.of());
  }

  /** The root and everything below it through valid references. */
  Set<SoakObject> reachable(SoakObject root) {
    Set<SoakObject> seen = new LinkedHashSet<>(List.of(root));
    seen.addAll(Walk.from(root, this::dependents));
    return seen;
  }

  /** Whether {@code o} is below {@code owner} (directly or not, through valid references). */
  boolean owns(SoakObject owner, SoakObject o) {
    return owner != o && reachable(owner).contains(o);
  }

  /** Whether {@code a} and {@code b} are one object or lie on one ring of owners. */
  boolean sameRing(SoakObject a, SoakObject b) {
    return a == b || (reachable(a).contains(b) && reachable(b).contains(a));
  }

  /** Every object of the round in {@code namespace}: what its deletion takes. */
  Set<SoakObject> namespaced(String namespace) {
    Set<SoakObject> out = new LinkedHashSet<>();
    for (SoakObject o : universe) {
      if (namespace.equals(o.namespace)) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * The built-in collector: an object goes once every owner it names is gone (least fixpoint), so
   * a ring, whose members own each other, is never collected; references to what went are removed.
   * An object naming an owner it cannot resolve (an unknown kind, a namespaced owner of a
   * cluster-scoped object) is never collected: classifying its references fails every time.
   */
  Set<SoakObject> builtin(SoakObject root) {
    Set<SoakObject> deleted = new LinkedHashSet<>(List.of(root));
    boolean grew = true;
    while (grew) {
      grew = false;
      for (SoakObject o : universe) {
        if (!deleted.contains(o) && !o.owners.isEmpty() && o.unresolvable.isEmpty() && deleted.containsAll(o.owners)) {
          deleted.add(o);
          grew = true;
        }
      }
    }
    return deleted;
  }

  /**
   * SPEC, synchronous deletion: everything reachable from the root goes, except what a solid owner
   * keeps: an owner outside the cascade, or an object itself kept (least fixpoint, so a ring kept
   * only by its own members is not kept). An object carrying a reference Kubernetes considers
   * invalid is kept too: syncgc never deletes an object the built-in collector would keep.
   */
  Set<SoakObject> synchronous(SoakObject root) {
    Set<SoakObject> reach = reachable(root);
    Set<SoakObject> kept = new HashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (SoakObject o : reach) {
        if (o != root && !kept.contains(o) && (o.invalidReference()
            || o.owners.stream().anyMatch(p -> (p != root && !reach.contains(p)) || kept.contains(p)))) {
          kept.add(o);
          grew = true;
        }
      }
    }
    Set<SoakObject> deleted = new LinkedHashSet<>(reach);
    deleted.removeAll(kept);
    return deleted;
  }
}
