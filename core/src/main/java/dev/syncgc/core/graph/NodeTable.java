package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Uids;
import java.util.ArrayList;
import java.util.List;

/**
 * The graph's nodes by uid, and the sharing of what objects repeat: an owner's name is otherwise one
 * copy in the owner and one in each dependent's reference, its one-owner reference list one per
 * dependent, and label maps and finalizer lists one per object. Only equal values are shared, so
 * nothing but memory changes. Not thread-safe; the graph's monitor guards it.
 */
final class NodeTable {
  private final UidMap nodes = new UidMap();
  private final SharedValues values = new SharedValues();

  /** The node of a uid given as text (the graph's callers name objects so), or null. */
  Node get(String uid) {
    return Uids.canonical(uid) ? nodes.get(Uids.high(uid), Uids.low(uid), null) : nodes.get(0, 0, uid);
  }

  Node get(ObjectRef ref) {
    return nodes.get(ref.uidHigh(), ref.uidLow(), ref.opaqueUid());
  }

  Node get(OwnerLink link) {
    return nodes.get(link.uidHigh(), link.uidLow(), link.opaqueUid());
  }

  Node getOrAdd(ObjectRef ref) {
    return getOrAdd(ref.uidHigh(), ref.uidLow(), ref.opaqueUid());
  }

  Node getOrAdd(OwnerLink link) {
    return getOrAdd(link.uidHigh(), link.uidLow(), link.opaqueUid());
  }

  private Node getOrAdd(long high, long low, String opaque) {
    Node node = nodes.get(high, low, opaque);
    if (node == null) {
      node = new Node(high, low, opaque);
      nodes.add(node);
    }
    return node;
  }

  /** Drops {@code node} if nothing is left in it. */
  void dropIfUnused(Node node) {
    if (node.unused()) {
      nodes.remove(node.high, node.low, node.opaque);
    }
  }

  /** Records that {@code dependent} names {@code owner}. */
  void attach(OwnerLink owner, Node dependent) {
    getOrAdd(owner).addDependent(dependent);
  }

  /** Records that {@code dependent} no longer names {@code owner}. */
  void detach(OwnerLink owner, Node dependent) {
    Node node = get(owner);
    if (node != null) {
      node.removeDependent(dependent);
      dropIfUnused(node);
    }
  }

  /** The references of {@code object}, the first of each owner only. */
  static List<OwnerLink> distinctOwners(ObjectMetadata object) {
    List<OwnerLink> owners = object.owners();
    if (owners.size() < 2) {
      return owners;
    }
    List<OwnerLink> distinct = new ArrayList<>(owners.size());
    for (OwnerLink link : owners) {
      if (!namesSameOwner(distinct, link)) {
        distinct.add(link);
      }
    }
    return distinct;
  }

  /** Whether one of {@code links} names the owner {@code link} names. */
  static boolean namesSameOwner(List<OwnerLink> links, OwnerLink link) {
    for (OwnerLink l : links) {
      if (l.namesSameOwner(link)) {
        return true;
      }
    }
    return false;
  }

  /** Observed and virtual nodes. */
  int size() {
    return nodes.size();
  }

  Iterable<Node> all() {
    return nodes;
  }

  /** {@code object} with the instances the graph already holds where equal; its node must exist. */
  ObjectMetadata shared(ObjectMetadata object) {
    ObjectRef ref = object.ref();
    String name = sharedName(ref.name(), get(ref));
    List<OwnerLink> owners = owners(object.owners());
    List<String> finalizers = values.shared(object.finalizers());
    var annotations = values.shared(object.annotations());
    var labels = values.shared(object.labels());
    if (name == ref.name() && owners == object.owners() && finalizers == object.finalizers()
        && annotations == object.annotations() && labels == object.labels()) {
      return object;
    }
    return new ObjectMetadata(ref.withName(name), object.resourceVersion(), owners, finalizers,
        object.deletionTimestamp(), object.deletionGracePeriodSeconds(), annotations, labels);
  }

  private List<OwnerLink> owners(List<OwnerLink> links) {
    if (links.size() == 1) {
      Node owner = getOrAdd(links.get(0));
      if (owner.asOwner == null) {
        owner.asOwner = List.of(link(links.get(0), owner));
      }
      return owner.asOwner.get(0).equals(links.get(0)) ? owner.asOwner : List.of(link(links.get(0), owner));
    }
    List<OwnerLink> shared = new ArrayList<>(links.size());
    for (OwnerLink link : links) {
      Node owner = getOrAdd(link);
      boolean held = owner.asOwner != null && owner.asOwner.get(0).equals(link);
      shared.add(held ? owner.asOwner.get(0) : link(link, owner));
    }
    return shared;
  }

  /** {@code link} with the owner's name instance. */
  private static OwnerLink link(OwnerLink link, Node owner) {
    String name = sharedName(link.name(), owner);
    return name == link.name() ? link : link.withName(name);
  }

  /** The name instance {@code node} holds if equal to {@code name}, else {@code name}. */
  private static String sharedName(String name, Node node) {
    String known = node.name();
    return name.equals(known) ? known : name;
  }
}
