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
 * owners), which deletion must come before which, and which DELETEs syncgc may send. Written from
 * SPEC's rules and the built-in collector's, independently of the operator's code, by brute force
 * over a small graph.
 */
final class Oracle {

  /** {@code first} must be gone (its DELETE revision lower) before {@code then}. */
  record Before(SoakObject first, SoakObject then, String why) {}

  /**
   * {@code dependent} must have lost its reference to {@code owner} (a version of it without the
   * reference, at a lower revision) before {@code owner} is gone: the API server's orphaning.
   */
  record Unreferenced(SoakObject dependent, SoakObject owner, String why) {}

  /**
   * {@code dependent}'s deletion must not begin (deletionTimestamp, or its DELETE) before
   * {@code owner}'s did: an object is never deleted while an owner is alive (invariant 1).
   */
  record NotWhileOwned(SoakObject dependent, SoakObject owner, String why) {}

  /**
   * What syncgc's identity may DELETE in one scenario: each object of {@code cascade} once (a
   * second DELETE answered 2xx deletes an object already being deleted), and {@code handOver}, an
   * Orphan owner under deletion, once, with {@code propagationPolicy: Orphan} (SPEC "Orphan
   * propagation"). Every DELETE carries the object's uid as precondition; nothing else is deleted.
   */
  record Deletes(Set<SoakObject> cascade, SoakObject handOver) {
    static final Deletes NONE = new Deletes(Set.of(), null);
  }

  /**
   * A usage edge ({@code syncgc.dev/uses}) between two objects the cascade deletes whose order the
   * model does not promise, and why ({@link #OWNS_WHAT_IT_USES}, {@link #RING_OF_USE},
   * {@link #MIXED_CYCLE}).
   */
  record Unjudged(SoakObject user, SoakObject used, String why) {}

  /**
   * @param deadline what the owner's short deadline promises, or null when it has none
   * @param unjudgedUses the usage edges inside the cascade that {@code order} has no pair for
   */
  record Expectation(Set<SoakObject> deleted, Map<SoakObject, Set<SoakObject>> survivorOwners,
      List<Before> order, List<Unreferenced> unreferenced, List<NotWhileOwned> notWhileOwned,
      Deletes deletes, DeadlineRule deadline, List<Unjudged> unjudgedUses, List<InUse> inUse,
      Set<SoakObject> held) {}

  /**
   * {@code used} is never gone (its DELETE revision) while {@code user}, which names it and is not
   * below it, still exists (SPEC "In use"): a user outside a synchronous cascade, of an Orphan owner,
   * of an owner whose namespace is deleted. Once the users are gone, {@code used} goes ({@code
   * deleted}); with a user never deleted in the round, it stays marked deleted ({@code held}).
   */
  record InUse(SoakObject user, SoakObject used, String why) {}

  /**
   * A short deadline (SPEC "Cycles and timeouts", "What a deadline does"): with {@code Release} the
   * owner is not gone before its deadline while a dependent that must go remains, and is gone by its
   * deadline or by when its last such dependent is gone, whichever comes first; with {@code Keep} it
   * stays marked as deleted while any of them remains, and goes once they are all gone.
   * {@link Terminating} judges both against a slack.
   */
  record DeadlineRule(SoakObject owner, Scenario.Deadline onTimeout, Set<SoakObject> dependents) {}

  static final String GOES_LAST = "the synchronous owner goes last";
  static final String KEPT = "on-timeout Keep: the owner stays past its deadline until its dependents are gone";
  static final String SOLE_OWNER = "a dependent goes before its only owner";
  static final String ORPHANED = "Orphan: the owner goes after its dependents lost the reference to it";
  static final String USERS_FIRST = "a user goes before what it uses (syncgc.dev/uses)";
  static final String OWNS_WHAT_IT_USES = "the user owns what it uses: ownership goes first (its cascade deletes it)";
  static final String RING_OF_USE = "users that use each other (a ring of use): released as a unit";
  static final String MIXED_CYCLE = "user and used lie on one cycle of ownership and use: released as a unit";
  static final String OUTSIDE_USER = "a user outside the cascade: the used object waits for it, the owner for the"
      + " used object";
  static final String HELD = "a user outside that stays: the owner is held, nothing of its deletion starts";
  static final String ORPHAN_IN_USE = "an Orphan owner in use: held until its users are gone, then handed over";
  static final String NAMESPACE_IN_USE = "a namespace deletion: the opted-in root waits for its users";
  static final String NO_SOLID_OWNER = "never deleted while an owner is alive (a dependent a Release leaves"
      + " to its other owner included)";

  /** The short deadline of a scenario that times out ({@link Generator}). */
  static final long TIMEOUT_MILLIS = 3000;

  private final Collection<SoakObject> universe;
  private final Map<SoakObject, List<SoakObject>> dependents = new HashMap<>();
  private final InUseRules inUse;

  /** @param universe every object of the round (owners outside a scenario included) */
  Oracle(Collection<SoakObject> universe) {
    this.universe = universe;
    this.inUse = new InUseRules(this, universe);
    for (SoakObject o : universe) {
      for (SoakObject owner : o.owners) {
        dependents.computeIfAbsent(owner, k -> new ArrayList<>()).add(o);
      }
    }
  }

  Expectation expect(Scenario s) {
    Set<SoakObject> held = inUse.held(s) ? Set.of(s.root) : Set.of();
    Set<SoakObject> cascade = !held.isEmpty() ? Set.of() : switch (s.mode()) {
      case NONE -> Set.of();
      case ORPHAN -> Set.of(s.root);
      case NAMESPACE -> namespaced(s.namespace);
      case BUILTIN -> builtin(s.root);
      case SYNC -> synchronous(s.root);
    };
    Set<SoakObject> deleted = new LinkedHashSet<>(cascade);
    deleted.addAll(s.lateUsers().keySet()); // the soak deletes them
    Map<SoakObject, Set<SoakObject>> survivors = new LinkedHashMap<>();
    for (SoakObject o : affected(s, deleted)) {
      if (!deleted.contains(o) && !held.contains(o)) {
        Set<SoakObject> owners = new LinkedHashSet<>(o.owners);
        if (s.mode() != Scenario.Mode.BUILTIN || o.unresolvable.isEmpty()) {
          // the built-in collector cannot classify the references of an object naming what it
          // cannot resolve, so it removes none of them: the reference to a deleted owner stays
          owners.removeAll(deleted);
        }
        survivors.put(o, owners);
      }
    }
    DeadlineRule deadline = null;
    if (s.mode() == Scenario.Mode.SYNC && s.timesOut()) {
      Set<SoakObject> dependents = new LinkedHashSet<>(cascade);
      dependents.remove(s.root);
      deadline = new DeadlineRule(s.root, s.deadline, dependents);
    }
    List<Unjudged> unjudged = new ArrayList<>();
    return new Expectation(deleted, survivors, order(s, cascade, unjudged), held.isEmpty() ? unreferenced(s) : List.of(),
        notWhileOwned(s, cascade), held.isEmpty() ? deletes(s, cascade) : Deletes.NONE, deadline, unjudged,
        inUse.pairs(s, cascade, held), held);
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
   * An object naming an owner it cannot resolve (an unknown kind, a namespaced owner of a
   * cluster-scoped object) is never collected: classifying its references fails every time.
   */
  private Set<SoakObject> builtin(SoakObject root) {
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

  /**
   * What syncgc may DELETE. A synchronous cascade: what it deletes, never the root (the user's
   * DELETE marked it; syncgc only lets it go). Under a namespace deletion a synchronous root's
   * cascade still runs beside the namespace controller, which makes every co-owner in the namespace
   * non-solid, so syncgc may DELETE anything below the root (the namespace controller may have marked
   * it a moment before: documented in docs/testing.md ("The chaos soak") as the one race allowed), never an object a live
   * owner outside the namespace keeps nor one carrying an invalid reference. An Orphan owner in
   * force is handed over once.
   */
  private Deletes deletes(Scenario s, Set<SoakObject> deleted) {
    return switch (s.mode()) {
      case SYNC -> new Deletes(without(deleted, s.root), null);
      case NAMESPACE -> s.orphanInForce() ? new Deletes(Set.of(), s.root)
          : s.synchronousRoot() ? new Deletes(without(reachable(s.root), s.root).stream()
              .filter(deleted::contains).filter(o -> !o.invalidReference())
              .filter(o -> deleted.containsAll(o.owners)) // a live owner outside the namespace keeps it
              .collect(LinkedHashSet::new, Set::add, Set::addAll), null)
          : Deletes.NONE;
      case ORPHAN -> s.orphanInForce() ? new Deletes(Set.of(), s.root) : Deletes.NONE;
      case BUILTIN, NONE -> Deletes.NONE;
    };
  }

  private static Set<SoakObject> without(Set<SoakObject> set, SoakObject o) {
    Set<SoakObject> out = new LinkedHashSet<>(set);
    out.remove(o);
    return out;
  }

  /**
   * Orphan (the API server's orphaning, whoever asked for it): every object naming the root by a
   * valid reference loses it before the root goes; the {@code orphan} finalizer holds the root until
   * kube-controller-manager has removed them all. Not under a namespace deletion, which deletes the
   * dependents too.
   */
  private List<Unreferenced> unreferenced(Scenario s) {
    List<Unreferenced> out = new ArrayList<>();
    if (s.mode() == Scenario.Mode.ORPHAN) {
      for (SoakObject d : dependents.getOrDefault(s.root, List.of())) {
        out.add(new Unreferenced(d, s.root, ORPHANED));
      }
    }
    return out;
  }

  /**
   * A synchronous cascade deletes an object only once no owner of it is alive: each owner outside
   * its ring was marked deleted (or gone) before it. This is what a {@code Release} deadline must
   * keep too: a dependent whose co-owner is still alive is left to that owner, even if a cascade is
   * about to delete the co-owner.
   */
  private List<NotWhileOwned> notWhileOwned(Scenario s, Set<SoakObject> deleted) {
    List<NotWhileOwned> out = new ArrayList<>();
    if (s.mode() != Scenario.Mode.SYNC) {
      return out;
    }
    for (SoakObject d : deleted) {
      for (SoakObject owner : d.owners) {
        if (d != s.root && !sameRing(d, owner)) {
          out.add(new NotWhileOwned(d, owner, NO_SOLID_OWNER));
        }
      }
    }
    return out;
  }

  private List<Before> order(Scenario s, Set<SoakObject> deleted, List<Unjudged> unjudged) {
    List<Before> out = new ArrayList<>();
    if (s.mode() == Scenario.Mode.NAMESPACE && s.optedIn() && !s.orphanInForce()) {
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
    Steps steps = new Steps(deleted);
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
    // higher waves first, unless the lower wave must begin before the higher one is gone: SPEC "In
    // use", users first whatever their waves. A child whose subtree uses (directly or through other
    // children's subtrees) something at or below another child counts in that child's wave at least,
    // so it may go with, or before, anything of that wave
    List<SoakObject> children = dependents.getOrDefault(s.root, List.of()).stream().filter(deleted::contains).toList();
    Map<SoakObject, Integer> counts = wavesCounted(children, deleted);
    List<SoakObject> waved = children.stream().filter(d -> d.owners.size() == 1).toList();
    for (SoakObject high : waved) {
      for (SoakObject low : waved) {
        if (wave(high) > wave(low) && counts.get(high) > counts.get(low)
            && !steps.reaches(steps.marked(low), steps.gone(high))) {
          out.add(new Before(high, low, "wave " + wave(high) + " before wave " + wave(low)));
        }
      }
    }
    // SPEC "In use": inside a cascade a user goes before what it uses, unless it owns it (its own
    // cascade deletes it first) or the two lie on one cycle of the steps' order (released as a unit)
    for (SoakObject user : deleted) {
      for (SoakObject used : user.uses) {
        if (!deleted.contains(used) || used == user) {
          continue;
        }
        if (owns(user, used)) {
          unjudged.add(new Unjudged(user, used, OWNS_WHAT_IT_USES));
        } else if (steps.oneCycle(user, used)) {
          unjudged.add(new Unjudged(user, used, steps.ringOfUse(user, used) ? RING_OF_USE : MIXED_CYCLE));
        } else {
          out.add(new Before(user, used, USERS_FIRST));
        }
      }
    }
    return out;
  }

  /**
   * The wave each child of the root counts in (SPEC "In use": users first, whatever their waves): its
   * own, raised to that of each child at or below which something is used from its subtree, directly
   * or through the subtrees of other children.
   */
  private Map<SoakObject, Integer> wavesCounted(List<SoakObject> children, Set<SoakObject> deleted) {
    Map<SoakObject, Set<SoakObject>> below = new HashMap<>();
    for (SoakObject c : children) {
      Set<SoakObject> subtree = new HashSet<>(reachable(c));
      subtree.retainAll(deleted);
      below.put(c, subtree);
    }
    Map<SoakObject, List<SoakObject>> usesBelow = new HashMap<>();
    for (SoakObject c : children) {
      List<SoakObject> used = new ArrayList<>();
      for (SoakObject other : children) {
        if (other != c && below.get(c).stream().anyMatch(o -> o.uses.stream().anyMatch(below.get(other)::contains))) {
          used.add(other);
        }
      }
      usesBelow.put(c, used);
    }
    Map<SoakObject, Integer> counts = new HashMap<>();
    for (SoakObject c : children) {
      int wave = wave(c);
      Set<SoakObject> seen = new HashSet<>(List.of(c));
      Deque<SoakObject> todo = new ArrayDeque<>(List.of(c));
      while (!todo.isEmpty()) {
        for (SoakObject other : usesBelow.get(todo.pop())) {
          if (seen.add(other)) {
            wave = Math.max(wave, wave(other));
            todo.push(other);
          }
        }
      }
      counts.put(c, wave);
    }
    return counts;
  }

  /** Whether {@code o} is below {@code owner} (directly or not, through valid references). */
  boolean owns(SoakObject owner, SoakObject o) {
    return owner != o && reachable(owner).contains(o);
  }

  /**
   * The order of the steps of a cascade, among the objects it deletes: each is marked deleted (its
   * deletion begins) before it is gone; an owner is marked before its dependents (never deleted
   * while an owner is alive) and gone after them (each owner counted: one may wait for a dependent
   * it shares); a user is gone before what it uses is marked (nothing of a used object's deletion
   * starts while a user is left), unless it owns it (ownership decides) or is below it (then the
   * used object's own deletion removes it first). A cycle in this order cannot be walked step by
   * step: its objects are released as a unit (a ring of owners, of users, or of both mixed,
   * users and what they use sharing a dependent among them).
   */
  private final class Steps {
    /** One step: the object marked deleted, or gone. */
    private record Step(SoakObject object, boolean gone) {}

    private final Map<Step, List<Step>> next = new HashMap<>();
    private final Map<Step, Set<Step>> reach = new HashMap<>();
    private final Set<SoakObject> deleted;
    private final Map<SoakObject, Set<SoakObject>> reachByUse = new HashMap<>();

    Steps(Set<SoakObject> deleted) {
      this.deleted = deleted;
      for (SoakObject o : deleted) {
        edge(marked(o), gone(o));
        for (SoakObject owner : o.owners) {
          if (deleted.contains(owner)) {
            edge(marked(owner), marked(o));
            edge(gone(o), gone(owner));
          }
        }
        for (SoakObject used : uses(o)) {
          if (!owns(used, o)) {
            edge(gone(o), marked(used));
          }
        }
      }
    }

    Step marked(SoakObject o) {
      return new Step(o, false);
    }

    Step gone(SoakObject o) {
      return new Step(o, true);
    }

    private void edge(Step from, Step to) {
      next.computeIfAbsent(from, k -> new ArrayList<>()).add(to);
    }

    /** What it uses in the cascade, but itself and what it owns. */
    private List<SoakObject> uses(SoakObject o) {
      return o.uses.stream().filter(deleted::contains).filter(u -> u != o && !owns(o, u)).toList();
    }

    boolean reaches(Step from, Step to) {
      Set<Step> known = reach.get(from);
      if (known == null) {
        known = new HashSet<>();
        Deque<Step> todo = new ArrayDeque<>(List.of(from));
        while (!todo.isEmpty()) {
          for (Step n : next.getOrDefault(todo.pop(), List.of())) {
            if (known.add(n)) {
              todo.push(n);
            }
          }
        }
        reach.put(from, known);
      }
      return known.contains(to);
    }

    /**
     * Whether user and used lie on one cycle: the user's being gone before the used one is marked
     * closes one; for a user below what it uses, both being gone lie on one.
     */
    boolean oneCycle(SoakObject user, SoakObject used) {
      return owns(used, user) ? reaches(gone(used), gone(user)) : reaches(marked(used), gone(user));
    }

    /** Whether they use each other, directly or through other users in the cascade (a ring of use). */
    boolean ringOfUse(SoakObject a, SoakObject b) {
      return usedFrom(a).contains(b) && usedFrom(b).contains(a);
    }

    private Set<SoakObject> usedFrom(SoakObject from) {
      return reachByUse.computeIfAbsent(from, f -> {
        Set<SoakObject> seen = new HashSet<>();
        Deque<SoakObject> todo = new ArrayDeque<>(List.of(f));
        while (!todo.isEmpty()) {
          for (SoakObject u : uses(todo.pop())) {
            if (seen.add(u)) {
              todo.push(u);
            }
          }
        }
        return seen;
      });
    }
  }

  private static int wave(SoakObject o) {
    return o.wave == null ? 0 : o.wave;
  }
}
