package dev.syncgc.e2e.soak;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The model: for one scenario's action, which objects must go, which must stay (and with which
 * owners), and which deletion must come before which. Written from SPEC's rules and the built-in
 * collector's, independently of the operator's code, by brute force over a small graph.
 */
final class Oracle {

  /** {@code first} must be gone (its DELETE revision lower) before {@code then}. */
  record Before(SoakObject first, SoakObject then, String why) {}

  /**
   * @param deadline what the owner's short deadline promises, or null when it has none
   */
  record Expectation(Set<SoakObject> deleted, Map<SoakObject, Set<SoakObject>> survivorOwners,
      List<Before> order, DeadlineRule deadline) {}

  /**
   * A short deadline (SPEC "Cycles and timeouts", "What a deadline does"): with {@code Release} the
   * owner is gone by its deadline or by when its last dependent that must go is gone, whichever
   * comes first; with {@code Keep} it stays marked as deleted while any of them remains, and goes
   * once they are all gone. {@link Terminating} judges both against a slack.
   */
  record DeadlineRule(SoakObject owner, Scenario.Deadline onTimeout, Set<SoakObject> dependents) {}

  static final String GOES_LAST = "the synchronous owner goes last";
  static final String KEPT = "on-timeout Keep: the owner stays past its deadline until its dependents are gone";
  static final String SOLE_OWNER = "a dependent goes before its only owner";

  /** The short deadline of a scenario that times out ({@link Generator}). */
  static final long TIMEOUT_MILLIS = 3000;

  private final Collection<SoakObject> universe;
  private final Map<SoakObject, List<SoakObject>> dependents = new HashMap<>();

  /** @param universe every object of the round (owners outside a scenario included) */
  Oracle(Collection<SoakObject> universe) {
    this.universe = universe;
    for (SoakObject o : universe) {
      for (SoakObject owner : o.owners) {
        dependents.computeIfAbsent(owner, k -> new ArrayList<>()).add(o);
      }
    }
  }

  Expectation expect(Scenario s) {
    Set<SoakObject> deleted = switch (s.mode()) {
      case NONE -> Set.of();
      case ORPHAN -> Set.of(s.root);
      case NAMESPACE -> namespaced(s.namespace);
      case BUILTIN -> builtin(s.root);
      case SYNC -> synchronous(s.root);
    };
    Map<SoakObject, Set<SoakObject>> survivors = new LinkedHashMap<>();
    for (SoakObject o : affected(s, deleted)) {
      if (!deleted.contains(o)) {
        Set<SoakObject> owners = new LinkedHashSet<>(o.owners);
        owners.removeAll(deleted);
        survivors.put(o, owners);
      }
    }
    DeadlineRule deadline = null;
    if (s.mode() == Scenario.Mode.SYNC && s.timesOut()) {
      Set<SoakObject> dependents = new LinkedHashSet<>(deleted);
      dependents.remove(s.root);
      deadline = new DeadlineRule(s.root, s.deadline, dependents);
    }
    return new Expectation(deleted, survivors, order(s, deleted), deadline);
  }

  /** Everything under the root, and every object that names something deleted: the objects to check. */
  private Set<SoakObject> affected(Scenario s, Set<SoakObject> deleted) {
    Set<SoakObject> out = new LinkedHashSet<>(s.objects);
    for (SoakObject o : universe) {
      if (o.owners.stream().anyMatch(deleted::contains) || (o.invalidOwner != null && s.objects.contains(o.invalidOwner))) {
        out.add(o);
      }
    }
    return out;
  }

  private Set<SoakObject> namespaced(String namespace) {
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
   */
  private Set<SoakObject> builtin(SoakObject root) {
    Set<SoakObject> deleted = new LinkedHashSet<>(List.of(root));
    boolean grew = true;
    while (grew) {
      grew = false;
      for (SoakObject o : universe) {
        if (!deleted.contains(o) && !o.owners.isEmpty() && deleted.containsAll(o.owners)) {
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
   * only by its own members is not kept).
   */
  private Set<SoakObject> synchronous(SoakObject root) {
    Set<SoakObject> reach = reachable(root);
    Set<SoakObject> kept = new HashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (SoakObject o : reach) {
        if (o != root && !kept.contains(o)
            && o.owners.stream().anyMatch(p -> (p != root && !reach.contains(p)) || kept.contains(p))) {
          kept.add(o);
          grew = true;
        }
      }
    }
    Set<SoakObject> deleted = new LinkedHashSet<>(reach);
    deleted.removeAll(kept);
    return deleted;
  }

  /** The root and everything below it through valid references. */
  Set<SoakObject> reachable(SoakObject root) {
    Set<SoakObject> seen = new LinkedHashSet<>(List.of(root));
    Deque<SoakObject> todo = new ArrayDeque<>(List.of(root));
    while (!todo.isEmpty()) {
      for (SoakObject d : dependents.getOrDefault(todo.pop(), List.of())) {
        if (seen.add(d)) {
          todo.push(d);
        }
      }
    }
    return seen;
  }

  private boolean sameRing(SoakObject a, SoakObject b) {
    return a == b || (reachable(a).contains(b) && reachable(b).contains(a));
  }

  private List<Before> order(Scenario s, Set<SoakObject> deleted) {
    List<Before> out = new ArrayList<>();
    if (s.mode() == Scenario.Mode.NAMESPACE && s.optedIn() && s.shape != Scenario.Shape.ORPHAN_ANNOTATION
        && s.shape != Scenario.Shape.ORPHAN_POLICY) {
      // the namespace controller deletes everything at once; the synchronous root still waits
      // for its own dependents, those its cascade would delete: one a solid owner outside the
      // cascade keeps (a keeper) only loses its reference to the root, which may go first
      Set<SoakObject> cascade = synchronous(s.root);
      for (SoakObject d : dependents.getOrDefault(s.root, List.of())) {
        if (deleted.contains(d) && cascade.contains(d)) {
          out.add(new Before(d, s.root, "a dependent of a synchronous root goes first"));
        }
      }
      return out;
    }
    if (s.mode() != Scenario.Mode.SYNC) {
      return out;
    }
    if (s.deadline == Scenario.Deadline.RELEASE) {
      return out; // a deadline that releases lets an owner go before its dependents: no order to check
    }
    // SPEC step 4: the owner acted on goes last, after everything the cascade deletes; with
    // on-timeout Keep even past its deadline (its dependents inherit Keep, so the rest holds too)
    String last = s.deadline == Scenario.Deadline.KEEP ? KEPT : GOES_LAST;
    for (SoakObject d : deleted) {
      if (d != s.root) {
        out.add(new Before(d, s.root, last));
      }
    }
    // a cascaded owner waits for a dependent it alone owns; one with other owners in the cascade
    // may be left to whichever of them goes last (SPEC step 2: an owner not yet marked deleted is
    // solid), so no order is promised between it and its other owners
    for (SoakObject owner : deleted) {
      for (SoakObject d : dependents.getOrDefault(owner, List.of())) {
        if (owner != s.root && deleted.contains(d) && d.owners.size() == 1 && !sameRing(owner, d)) {
          out.add(new Before(d, owner, SOLE_OWNER));
        }
      }
    }
    List<SoakObject> waved = dependents.getOrDefault(s.root, List.of()).stream()
        .filter(deleted::contains).filter(d -> d.owners.size() == 1).toList();
    for (SoakObject high : waved) {
      for (SoakObject low : waved) {
        if (wave(high) > wave(low)) {
          out.add(new Before(high, low, "wave " + wave(high) + " before wave " + wave(low)));
        }
      }
    }
    return out;
  }

  private static int wave(SoakObject o) {
    return o.wave == null ? 0 : o.wave;
  }
}
