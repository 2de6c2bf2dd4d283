package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Uids;
import java.util.List;

/**
 * One uid of the graph: an observed object, an owner named by one, or both. It holds its uid as
 * {@link Uids} keeps it, so that the tables that file it ({@link UidMap}) need no key of their own.
 */
final class Node {
  final long high;
  final long low;
  final String opaque;
  ObjectMetadata meta; // null: virtual, only named as an owner
  /** By uid; null when none, which is most objects (the leaves). */
  UidMap dependents;
  /**
   * The one-owner list naming this node that its dependents share when theirs is equal: in a wide or
   * tree shape most objects have exactly one owner reference, so most references cost no memory.
   * Null until something names it.
   */
  List<OwnerLink> asOwner;

  Node(long high, long low, String opaque) {
    this.high = high;
    this.low = low;
    this.opaque = opaque;
  }

  boolean is(long high, long low, String opaque) {
    return Uids.same(this.high, this.low, this.opaque, high, low, opaque);
  }

  /** Whether {@code link} names this node. */
  boolean namedBy(OwnerLink link) {
    return is(link.uidHigh(), link.uidLow(), link.opaqueUid());
  }

  void addDependent(Node dependent) {
    if (dependents == null) {
      dependents = new UidMap();
    }
    dependents.add(dependent);
  }

  void removeDependent(Node dependent) {
    if (dependents != null && dependents.remove(dependent.high, dependent.low, dependent.opaque) != null
        && dependents.isEmpty()) {
      dependents = null;
    }
  }

  boolean unused() {
    return meta == null && dependents == null;
  }

  /** The name it is known by (the object's, or the first reference's), or null. */
  String name() {
    return meta != null ? meta.ref().name() : asOwner != null ? asOwner.get(0).name() : null;
  }
}
