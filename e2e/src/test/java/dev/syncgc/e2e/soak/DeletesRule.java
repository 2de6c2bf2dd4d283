package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.Deletes;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What syncgc may DELETE. A synchronous cascade: what it deletes, never the root (the user's
 * DELETE marked it; syncgc only lets it go). Under a namespace deletion a synchronous root's
 * cascade still runs beside the namespace controller, which makes every co-owner in the namespace
 * non-solid, so syncgc may DELETE anything below the root (the namespace controller may have marked
 * it a moment before: documented in docs/testing.md ("The chaos soak") as the one race allowed), never an object a live
 * owner outside the namespace keeps nor one carrying an invalid reference. An Orphan owner in
 * force is handed over once.
 */
final class DeletesRule implements Rule<Deletes> {
  private final Ownership ownership;

  DeletesRule(Ownership ownership) {
    this.ownership = ownership;
  }

  @Override
  public Deletes expect(Scenario s, Set<SoakObject> deleted) {
    return switch (s.mode()) {
      case SYNC -> new Deletes(without(deleted, s.root), null);
      case NAMESPACE -> s.orphanInForce() ? new Deletes(Set.of(), s.root)
          : s.synchronousRoot() ? new Deletes(without(ownership.reachable(s.root), s.root).stream()
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
}
