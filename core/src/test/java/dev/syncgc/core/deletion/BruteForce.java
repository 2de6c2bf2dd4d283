package dev.syncgc.core.deletion;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The SPEC's rules worked out from a set of objects alone, with none of the planner's code and the
 * most naive algorithms: reachability by repeated passes, rings as mutual reachability.
 */
public final class BruteForce {
  private final Map<String, ObjectMetadata> objects;

  public BruteForce(Map<String, ObjectMetadata> objects) {
    this.objects = objects;
  }

  /** Whether Kubernetes honours the link (the owner's kind is served and its scope fits). */
  boolean valid(ObjectMetadata dependent, OwnerLink link) {
    Scope scope = TestObjects.KINDS.scope(link);
    return switch (scope) {
      case UNKNOWN -> false;
      case CLUSTER -> true;
      case NAMESPACED -> {
        ObjectMetadata owner = objects.get(link.uid());
        yield dependent.ref().namespaced()
            && (owner == null || dependent.ref().namespace().equals(owner.ref().namespace()));
      }
    };
  }

  /**
   * As the built-in collector's classifyReferences: exists and is not being deleted in a mode that
   * deletes its dependents (foregroundDeletion, or a syncgc deletion that cascades: every object of
   * these worlds is Synchronous, so one carrying syncgc's finalizer or a recorded deadline, without the
   * orphan finalizer); or cannot be seen (an untracked kind) and so is presumed to.
   */
  boolean solid(OwnerLink link) {
    ObjectMetadata owner = objects.get(link.uid());
    if (!TestObjects.KINDS.tracked(link)) {
      return true;
    }
    if (owner == null) {
      return false;
    }
    if (!owner.beingDeleted()) {
      return true;
    }
    boolean cascades = owner.hasFinalizer(Names.FOREGROUND_FINALIZER)
        || !owner.hasFinalizer(Names.ORPHAN_FINALIZER)
        && (owner.hasFinalizer(Names.FINALIZER) || owner.annotation(Names.DEADLINE) != null);
    return !cascades;
  }

  /**
   * A reference that keeps its object if nothing else is known: one Kubernetes treats as invalid
   * (unserved kind, namespaced owner of a cluster-scoped object, owner in another namespace: never
   * followed, and the object is never deleted through another owner either), or valid and solid.
   */
  boolean keepingLink(ObjectMetadata d, OwnerLink link) {
    return !valid(d, link) || solid(link);
  }

  /** Whether the object carries a reference Kubernetes treats as invalid. */
  boolean hasInvalidLink(ObjectMetadata d) {
    return d.owners().stream().anyMatch(l -> !valid(d, l));
  }

  boolean validlyOwnedBy(ObjectMetadata d, String ownerUid) {
    return d.owners().stream().anyMatch(l -> l.uid().equals(ownerUid) && valid(d, l));
  }

  /** The edge owner → dependent, both observed, through a valid reference. */
  public boolean edge(String owner, String dependent) {
    ObjectMetadata d = objects.get(dependent);
    return d != null && objects.containsKey(owner) && validlyOwnedBy(d, owner);
  }

  /** Objects reachable from {@code from} through one or more edges. */
  public Set<String> reach(String from) {
    Set<String> reached = new HashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (String u : objects.keySet()) {
        if (!reached.contains(u) && ((edge(from, u)) || reached.stream().anyMatch(r -> edge(r, u)))) {
          reached.add(u);
          grew = true;
        }
      }
    }
    return reached;
  }

  /** The ring of {@code uid}: itself and whatever it reaches that reaches it back. */
  public Set<String> ring(String uid) {
    Set<String> ring = new HashSet<>();
    ring.add(uid);
    for (String v : reach(uid)) {
      if (reach(v).contains(uid)) {
        ring.add(v);
      }
    }
    return ring;
  }

  /**
   * Whether an owner other than {@code ownerUid} keeps {@code d} under SPEC step 2: a keeping link
   * to an owner outside d's ring (or not observed), or to a ring member that support from outside
   * reaches: support enters at a member not being deleted with a keeping link out of the ring, and
   * flows along the ring through members not being deleted.
   */
  boolean keptByAnother(ObjectMetadata d, String ownerUid) {
    Set<String> ring = ring(d.uid());
    for (OwnerLink l : d.owners()) {
      if (l.uid().equals(ownerUid) || !keepingLink(d, l)) {
        continue;
      }
      if (!objects.containsKey(l.uid()) || !ring.contains(l.uid()) || !valid(d, l)) {
        return true;
      }
      if (supported(ring, l.uid())) {
        return true;
      }
    }
    return false;
  }

  private boolean supported(Set<String> ring, String member) {
    Set<String> reached = new HashSet<>();
    for (String m : ring) {
      ObjectMetadata o = objects.get(m);
      if (!o.beingDeleted() && o.owners().stream().anyMatch(l -> !ring.contains(l.uid()) && keepingLink(o, l))) {
        reached.add(m);
      }
    }
    boolean grew = true;
    while (grew) {
      grew = false;
      for (String m : ring) {
        if (!reached.contains(m) && !objects.get(m).beingDeleted()
            && reached.stream().anyMatch(r -> edge(r, m))) {
          reached.add(m);
          grew = true;
        }
      }
    }
    return reached.contains(member);
  }

  /**
   * What deleting {@code root} (and nothing else) must delete: everything it reaches, minus what a
   * solid owner outside that set or an invalid reference keeps, directly or through kept objects (a
   * least fixpoint).
   */
  Set<String> garbage(String root) {
    Set<String> reach = reach(root);
    reach.remove(root);
    Set<String> kept = new HashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (String u : reach) {
        ObjectMetadata d = objects.get(u);
        // an invalid reference keeps whatever it names (even the root's uid: it is not the root's link)
        if (!kept.contains(u) && d.owners().stream().anyMatch(l -> !valid(d, l) || (!l.uid().equals(root)
            && solid(l) && (!reach.contains(l.uid()) || kept.contains(l.uid()))))) {
          kept.add(u);
          grew = true;
        }
      }
    }
    Set<String> garbage = new HashSet<>(reach);
    garbage.removeAll(kept);
    return garbage;
  }

  public static BruteForce of(List<ObjectMetadata> objects) {
    Map<String, ObjectMetadata> map = new java.util.LinkedHashMap<>();
    objects.forEach(o -> map.put(o.uid(), o));
    return new BruteForce(map);
  }
}
