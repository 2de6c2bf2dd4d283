package dev.syncgc.e2e.soak;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
final class Steps {
  /** One step: the object marked deleted, or gone. */
  record Step(SoakObject object, boolean gone) {}

  private final Ownership ownership;
  private final Map<Step, List<Step>> next = new HashMap<>();
  private final Map<Step, Set<Step>> reach = new HashMap<>();
  private final Set<SoakObject> deleted;
  private final Map<SoakObject, Set<SoakObject>> reachByUse = new HashMap<>();

  Steps(Ownership ownership, Set<SoakObject> deleted) {
    this.ownership = ownership;
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
        if (!ownership.owns(used, o)) {
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
    return o.uses.stream().filter(deleted::contains).filter(u -> u != o && !ownership.owns(o, u)).toList();
  }

  boolean reaches(Step from, Step to) {
    return reach.computeIfAbsent(from, f -> Walk.from(f, s -> next.getOrDefault(s, List.of()))).contains(to);
  }

  /**
   * Whether user and used lie on one cycle: the user's being gone before the used one is marked
   * closes one; for a user below what it uses, both being gone lie on one.
   */
  boolean oneCycle(SoakObject user, SoakObject used) {
    return ownership.owns(used, user) ? reaches(gone(used), gone(user)) : reaches(marked(used), gone(user));
  }

  /** Whether they use each other, directly or through other users in the cascade (a ring of use). */
  boolean ringOfUse(SoakObject a, SoakObject b) {
    return usedFrom(a).contains(b) && usedFrom(b).contains(a);
  }

  private Set<SoakObject> usedFrom(SoakObject from) {
    return reachByUse.computeIfAbsent(from, f -> Walk.from(f, this::uses));
  }
}
