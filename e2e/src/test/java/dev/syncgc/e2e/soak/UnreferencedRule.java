package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.Unreferenced;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Orphan (the API server's orphaning, whoever asked for it): every object naming the root by a
 * valid reference loses it before the root goes; the {@code orphan} finalizer holds the root until
 * kube-controller-manager has removed them all. Not under a namespace deletion, which deletes the
 * dependents too.
 */
final class UnreferencedRule implements Rule<List<Unreferenced>> {
  private final Ownership ownership;

  UnreferencedRule(Ownership ownership) {
    this.ownership = ownership;
  }

  @Override
  public List<Unreferenced> expect(Scenario s, Set<SoakObject> cascade) {
    List<Unreferenced> out = new ArrayList<>();
    if (s.mode() == Scenario.Mode.ORPHAN) {
      for (SoakObject d : ownership.dependents(s.root)) {
        out.add(new Unreferenced(d, s.root, Oracle.ORPHANED));
      }
    }
    return out;
  }
}
