package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.InUse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The model's holds of use beyond one synchronous cascade (SPEC "In use"): which pairs of user and
 * used object {@link Checks} judges on etcd's record, and when a root is held in use for the whole
 * round. Inside a cascade, {@link Oracle}'s order says users first.
 */
final class InUseRules implements Rule<List<InUse>> {
  private final Ownership ownership;
  private final Collection<SoakObject> universe;

  InUseRules(Ownership ownership, Collection<SoakObject> universe) {
    this.ownership = ownership;
    this.universe = universe;
  }

  /** A synchronous root used by a user outside its tree that the round never deletes: held in use. */
  boolean held(Scenario s) {
    return s.mode() == Scenario.Mode.SYNC && s.outsideUsers.entrySet().stream()
        .anyMatch(u -> u.getValue() < 0 && u.getKey().uses.contains(s.root) && !ownership.owns(s.root, u.getKey()));
  }

  @Override
  public List<InUse> expect(Scenario s, Set<SoakObject> cascade) {
    return pairs(s, cascade, held(s) ? Set.of(s.root) : Set.of());
  }

  /**
   * The pairs held in use beyond one cascade: what a user outside the synchronous cascade names in
   * it, what names a root held in use, an opted-in root Orphan in force or whose namespace is deleted
   * (not by a user below it, which the root's own deletion removes first, nor one it uses back: a ring
   * of use, released as a unit).
   */
  private List<InUse> pairs(Scenario s, Set<SoakObject> cascade, Set<SoakObject> held) {
    List<InUse> out = new ArrayList<>();
    if (!held.isEmpty() || s.mode() == Scenario.Mode.SYNC) {
      for (SoakObject user : s.outsideUsers.keySet()) {
        for (SoakObject used : user.uses) {
          if (held.contains(used) || (held.isEmpty() && cascade.contains(used))) {
            out.add(new InUse(user, used, held.isEmpty() ? Oracle.OUTSIDE_USER : Oracle.HELD));
          }
        }
      }
      return out;
    }
    boolean orphan = s.mode() == Scenario.Mode.ORPHAN && s.orphanInForce();
    boolean namespace = s.mode() == Scenario.Mode.NAMESPACE && s.optedIn();
    if (orphan || namespace) {
      for (SoakObject user : universe) {
        if (user.uses.contains(s.root) && !ownership.owns(s.root, user) && !usedFrom(s.root).contains(user)) {
          out.add(new InUse(user, s.root, orphan ? Oracle.ORPHAN_IN_USE : Oracle.NAMESPACE_IN_USE));
        }
      }
    }
    return out;
  }

  /** What {@code from} uses, directly or through what it uses. */
  private static Set<SoakObject> usedFrom(SoakObject from) {
    return Walk.from(from, o -> o.uses);
  }
}
