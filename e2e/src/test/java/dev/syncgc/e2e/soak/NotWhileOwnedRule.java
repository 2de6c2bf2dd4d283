package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.NotWhileOwned;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A synchronous cascade deletes an object only once no owner of it is alive: each owner outside
 * its ring was marked deleted (or gone) before it. This is what a {@code Release} deadline must
 * keep too: a dependent whose co-owner is still alive is left to that owner, even if a cascade is
 * about to delete the co-owner.
 */
final class NotWhileOwnedRule implements Rule<List<NotWhileOwned>> {
  private final Ownership ownership;

  NotWhileOwnedRule(Ownership ownership) {
    this.ownership = ownership;
  }

  @Override
  public List<NotWhileOwned> expect(Scenario s, Set<SoakObject> deleted) {
    List<NotWhileOwned> out = new ArrayList<>();
    if (s.mode() != Scenario.Mode.SYNC) {
      return out;
    }
    for (SoakObject d : deleted) {
      for (SoakObject owner : d.owners) {
        if (d != s.root && !ownership.sameRing(d, owner)) {
          out.add(new NotWhileOwned(d, owner, Oracle.NO_SOLID_OWNER));
        }
      }
    }
    return out;
  }
}
