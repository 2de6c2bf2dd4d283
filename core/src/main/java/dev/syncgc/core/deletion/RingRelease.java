package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
   * first), no member has a dependent outside the ring, and no member is held in use by a user
   * outside it (SPEC "In use": no release rule frees a used object; the whole ring waits, since
   * releasing the others would let an owner of the ring go before it). Members with an owner outside
   * the ring come last, so that an owner waiting for them sees the whole ring gone before it goes
   * itself.
   *
   * @param heldInUse whether a member's users hold it (users inside the ring do not)
   */
  static Optional<Step.ReleaseRing> of(DependencyGraph graph, ObjectMetadata owner,
      java.util.function.Predicate<ObjectMetadata> heldInUse) {
    Ring ring = Ring.of(graph, owner);
    if (!ring.isClosed()) {
      return Optional.empty(); // the usual case, found from the owner's ancestors alone
    }
    List<ObjectMetadata> inner = new ArrayList<>();
    List<ObjectMetadata> entries = new ArrayList<>();
    for (ObjectMetadata member : ring.members()) {
      if (!waitsOnlyForDependents(member) || heldInUse.test(member)) {
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
    Map<String, Integer> distance = distanceFromEntries(ring, entries);
    inner.sort(Comparator.comparing((ObjectMetadata m) -> distance.getOrDefault(m.uid(), Integer.MAX_VALUE))
        .reversed());
    inner.addAll(entries);
    return Optional.of(new Step.ReleaseRing(inner, ring.path(owner.uid())));
  }

  /**
   * How far each member is from the members owned from outside, along the ring's owner-to-dependent
   * edges. Released farthest first: a member whose dependents in the ring are gone completes by its
   * own plan, so the ones an entry member owns must go last, or the entry (and its owner after it)
   * would go while the rest of the ring is left (the soak, seed -6507660803086475762, round 4).
   */
  private static Map<String, Integer> distanceFromEntries(Ring ring, List<ObjectMetadata> entries) {
    Map<String, Integer> distance = new HashMap<>();
    Deque<String> todo = new ArrayDeque<>();
    for (ObjectMetadata e : entries) {
      distance.put(e.uid(), 0);
      todo.add(e.uid());
    }
    while (!todo.isEmpty()) {
      String at = todo.poll();
      for (String next : ring.successors(at)) {
        if (!distance.containsKey(next)) {
          distance.put(next, distance.get(at) + 1);
          todo.add(next);
        }
      }
    }
    return distance;
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
