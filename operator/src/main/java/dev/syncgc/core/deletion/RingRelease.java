package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A ring through the owner whose members are all being deleted and wait only for each other: it can
 * only end by being released as a unit (SPEC "Cycles and timeouts").
 */
final class RingRelease {
  private RingRelease() {}

  /**
   * The ring's release, if it is due: every member waits for its dependents (syncgc's or the
   * foreground finalizer) and for nothing else (another controller's finalizer is waited for
   * first), and no member has a dependent outside the ring. Members with an owner outside the ring
   * come last, so that an owner waiting for them sees the whole ring gone before it goes itself.
   */
  static Optional<Step.ReleaseRing> of(DependencyGraph graph, ObjectMetadata owner) {
    Ring ring = Ring.of(graph, owner);
    if (!ring.isClosed()) {
      return Optional.empty(); // the usual case, found from the owner's ancestors alone
    }
    List<ObjectMetadata> inner = new ArrayList<>();
    List<ObjectMetadata> entries = new ArrayList<>();
    for (ObjectMetadata member : ring.members()) {
      if (!waitsOnlyForDependents(member)) {
        return Optional.empty(); // a member that will go by itself, or is held by someone else
      }
      for (ObjectMetadata d : graph.dependentsOf(member.uid())) {
        if (!ring.contains(d.uid())) {
          return Optional.empty();
        }
      }
      boolean ownedFromOutside = member.owners().stream().map(OwnerLink::uid).anyMatch(u -> !ring.contains(u));
      (ownedFromOutside ? entries : inner).add(member);
    }
    inner.addAll(entries);
    return Optional.of(new Step.ReleaseRing(inner, ring.path(owner.uid())));
  }

  /** Being deleted and held only until its dependents are gone: by syncgc or by foreground deletion. */
  private static boolean waitsOnlyForDependents(ObjectMetadata object) {
    if (!object.beingDeleted()) {
      return false;
    }
    boolean waits = false;
    for (String f : object.finalizers()) {
      if (f.equals(Names.FINALIZER) || f.equals(Names.FOREGROUND_FINALIZER)) {
        waits = true;
      } else {
        return false;
      }
    }
    return waits;
  }
}
