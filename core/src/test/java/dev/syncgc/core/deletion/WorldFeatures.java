package dev.syncgc.core.deletion;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a generated world contains, for the property tests' statistics (so that a generator that
 * never reaches a case shows, instead of the property passing on easy worlds): worked out by brute
 * force from the objects, like {@link BruteForce}.
 */
final class WorldFeatures {
  static final String NO_INVALID = "none";
  static final String UNSERVED = "unserved kind";
  static final String CLUSTER_SCOPED_DEPENDENT = "cluster-scoped dependent of a namespaced owner";
  static final String OTHER_NAMESPACE = "owner in another namespace";

  private final Map<String, ObjectMetadata> objects;
  private final BruteForce bf;

  WorldFeatures(Map<String, ObjectMetadata> objects) {
    this.objects = objects;
    this.bf = new BruteForce(objects);
  }

  /** Some object shares a ring (strongly connected component) with another. */
  boolean hasRing() {
    return objects.keySet().stream().anyMatch(u -> bf.ring(u).size() > 1);
  }

  /** Some object has two owners that one object reaches (or is) both: two paths down to it. */
  boolean hasDiamond() {
    for (ObjectMetadata d : objects.values()) {
      List<String> owners = d.owners().stream().map(OwnerLink::uid).filter(u -> bf.edge(u, d.uid())).toList();
      for (int i = 0; i < owners.size(); i++) {
        for (int j = i + 1; j < owners.size(); j++) {
          String p = owners.get(i);
          String q = owners.get(j);
          for (String a : objects.keySet()) {
            Set<String> reach = new HashSet<>(bf.reach(a));
            reach.add(a);
            if (reach.contains(p) && reach.contains(q)) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  /** The kinds of invalid reference in the world, or {@link #NO_INVALID}. */
  List<String> invalidReferences() {
    Set<String> kinds = new java.util.TreeSet<>();
    for (ObjectMetadata d : objects.values()) {
      for (OwnerLink l : d.owners()) {
        String kind = invalidKind(d, l);
        if (kind != null) {
          kinds.add(kind);
        }
      }
    }
    return kinds.isEmpty() ? List.of(NO_INVALID) : new ArrayList<>(kinds);
  }

  /** Why Kubernetes treats the reference as invalid, or null if it is valid. */
  String invalidKind(ObjectMetadata d, OwnerLink l) {
    Scope scope = TestObjects.KINDS.scope(l);
    if (scope == Scope.UNKNOWN) {
      return UNSERVED;
    }
    if (scope == Scope.NAMESPACED && !d.ref().namespaced()) {
      return CLUSTER_SCOPED_DEPENDENT;
    }
    return bf.valid(d, l) ? null : OTHER_NAMESPACE;
  }

  boolean hasInvalidLink(ObjectMetadata d) {
    return bf.hasInvalidLink(d);
  }

  /**
   * An owner of {@code d} other than {@code ownerUid} that is alive (observed and not being deleted,
   * or of an untracked kind), through a valid reference, outside d's ring: it keeps d whatever else
   * happens (a cascade it is doomed by has not reached it yet).
   */
  boolean hasAliveCoOwnerOutsideItsRing(ObjectMetadata d, String ownerUid) {
    Set<String> ring = bf.ring(d.uid());
    return d.owners().stream().anyMatch(l -> !l.uid().equals(ownerUid) && bf.valid(d, l) && bf.solid(l)
        && !ring.contains(l.uid()));
  }

  /** The object's recorded deadline: "none yet", "ahead", or "passed, Release" / "passed, Keep". */
  static String deadline(ObjectMetadata o) {
    Instant deadline = DeletionPlanner.deadlineOf(o);
    if (deadline == null) {
      return "none yet";
    }
    if (deadline.isAfter(Worlds.NOW)) {
      return "ahead";
    }
    return DeletionSettings.fromAnnotations(o.annotations()).onTimeout().orElse(OnTimeout.RELEASE) == OnTimeout.KEEP
        ? "passed, Keep" : "passed, Release";
  }

  /**
   * An alive owner of {@code d} (other than {@code ownerUid}, outside d's ring) that is itself validly
   * owned by an owner under synchronous deletion: a co-owner that cascade is about to delete (doomed),
   * but alive now.
   */
  boolean hasDoomedCoOwner(ObjectMetadata d, String ownerUid) {
    Set<String> ring = bf.ring(d.uid());
    return d.owners().stream().anyMatch(l -> !l.uid().equals(ownerUid) && bf.valid(d, l) && !ring.contains(l.uid())
        && objects.containsKey(l.uid()) && !objects.get(l.uid()).beingDeleted()
        && objects.values().stream().anyMatch(c -> c.beingDeleted() && c.hasFinalizer(Names.FINALIZER)
            && bf.validlyOwnedBy(objects.get(l.uid()), c.uid())));
  }
}
