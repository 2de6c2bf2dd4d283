package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.List;

/** One uid of the graph: an observed object, an owner named by one, or both. */
final class Node {
  ObjectMetadata meta; // null: virtual, only named as an owner
  /** By uid; null when none, which is most objects (the leaves). */
  UidMap<Node> dependents;
  /**
   * The one-owner list naming this node that its dependents share when theirs is equal: in a wide or
   * tree shape most objects have exactly one owner reference, so most references cost no memory.
   * Null until something names it.
   */
  List<OwnerLink> asOwner;

  void addDependent(String uid, Node dependent) {
    if (dependents == null) {
      dependents = new UidMap<>();
    }
    dependents.put(uid, dependent);
  }

  void removeDependent(String uid) {
    if (dependents != null && dependents.remove(uid) != null && dependents.isEmpty()) {
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
