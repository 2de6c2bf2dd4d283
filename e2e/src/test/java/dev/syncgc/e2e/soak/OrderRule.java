package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.Before;
import dev.syncgc.e2e.soak.Oracle.Unjudged;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which deletion must come before which (SPEC steps 2 and 4, waves, "In use": users first), and the
 * usage edges inside a synchronous cascade whose order the model does not promise.
 */
final class OrderRule implements Rule<OrderRule.Order> {

  /** The pairs promised, and the usage edges left unjudged. */
  record Order(List<Before> before, List<Unjudged> unjudged) {}

  private final Ownership ownership;

  OrderRule(Ownership ownership) {
    this.ownership = ownership;
  }

  @Override
  public Order expect(Scenario s, Set<SoakObject> deleted) {
    List<Before> out = new ArrayList<>();
    List<Unjudged> unjudged = new ArrayList<>();
    Order order = new Order(out, unjudged);
    if (s.mode() == Scenario.Mode.NAMESPACE && s.optedIn() && !s.orphanInForce()) {
      // the namespace controller deletes everything at once; the synchronous root still waits
      // for its own dependents, those its cascade would delete: one a solid owner outside the
      // cascade keeps (a keeper) only loses its reference to the root, which may go first
      Set<SoakObject> cascade = ownership.synchronous(s.root);
      for (SoakObject d : ownership.dependents(s.root)) {
        if (deleted.contains(d) && cascade.contains(d)) {
          out.add(new Before(d, s.root, "a dependent of a synchronous root goes first"));
        }
      }
      return order;
    }
    if (s.mode() != Scenario.Mode.SYNC) {
      return order;
    }
    if (s.deadline == Scenario.Deadline.RELEASE) {
      return order; // a deadline that releases lets an owner go before its dependents: no order to check
    }
    Steps steps = new Steps(ownership, deleted);
    // SPEC step 4: the owner acted on goes last, after everything the cascade deletes; with
    // on-timeout Keep even past its deadline (its dependents inherit Keep, so the rest holds too)
    String last = s.deadline == Scenario.Deadline.KEEP ? Oracle.KEPT : Oracle.GOES_LAST;
    for (SoakObject d : deleted) {
      if (d != s.root) {
        out.add(new Before(d, s.root, last));
      }
    }
    // a cascaded owner waits for a dependent it alone owns; one with other owners in the cascade
    // may be left to whichever of them goes last (SPEC step 2: an owner not yet marked deleted is
    // solid), so no order is promised between it and its other owners
    for (SoakObject owner : deleted) {
      for (SoakObject d : ownership.dependents(owner)) {
        if (owner != s.root && deleted.contains(d) && d.owners.size() == 1 && !ownership.sameRing(owner, d)) {
          out.add(new Before(d, owner, Oracle.SOLE_OWNER));
        }
      }
    }
    // higher waves first, unless the lower wave must begin before the higher one is gone: SPEC "In
    // use", users first whatever their waves. A child whose subtree uses (directly or through other
    // children's subtrees) something at or below another child counts in that child's wave at least,
    // so it may go with, or before, anything of that wave
    List<SoakObject> children = ownership.dependents(s.root).stream().filter(deleted::contains).toList();
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
        if (ownership.owns(user, used)) {
          unjudged.add(new Unjudged(user, used, Oracle.OWNS_WHAT_IT_USES));
        } else if (steps.oneCycle(user, used)) {
          unjudged.add(new Unjudged(user, used, steps.ringOfUse(user, used) ? Oracle.RING_OF_USE : Oracle.MIXED_CYCLE));
        } else {
          out.add(new Before(user, used, Oracle.USERS_FIRST));
        }
      }
    }
    return order;
  }

  /**
   * The wave each child of the root counts in (SPEC "In use": users first, whatever their waves): its
   * own, raised to that of each child at or below which something is used from its subtree, directly
   * or through the subtrees of other children.
   */
  private Map<SoakObject, Integer> wavesCounted(List<SoakObject> children, Set<SoakObject> deleted) {
    Map<SoakObject, Set<SoakObject>> below = new HashMap<>();
    for (SoakObject c : children) {
      Set<SoakObject> subtree = new HashSet<>(ownership.reachable(c));
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
      for (SoakObject other : Walk.from(c, usesBelow::get)) {
        wave = Math.max(wave, wave(other));
      }
      counts.put(c, wave);
    }
    return counts;
  }

  private static int wave(SoakObject o) {
    return o.wave == null ? 0 : o.wave;
  }
}
