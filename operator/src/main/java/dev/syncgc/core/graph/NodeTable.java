package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The graph's nodes by uid, and the sharing of what objects repeat: an owner's uid and name are
 * otherwise one copy in the owner and one in each dependent's reference, its one-owner reference list
 * one per dependent, and label maps and finalizer lists one per object. Only equal values are shared,
 * so nothing but memory changes. Not thread-safe; the graph's monitor guards it.
 */
final class NodeTable {
  private final UidMap<Node> nodes = new UidMap<>();
  private final SharedValues values = new SharedValues();

  Node get(String uid) {
    return nodes.get(uid);
  }

  Node getOrAdd(String uid) {
    return nodes.computeIfAbsent(uid, u -> new Node());
  }

  /** Drops the node of {@code uid} if nothing is left in it. */
  void dropIfUnused(String uid, Node node) {
    if (node.unused()) {
      nodes.remove(uid);
    }
  }

  /** Records that {@code dependent} names {@code owner}. */
  void attach(String owner, String dependentUid, Node dependent) {
    getOrAdd(owner).addDependent(dependentUid, dependent);
  }

  /** Records that {@code dependent} no longer names {@code owner}. */
  void detach(String owner, String dependent) {
    Node node = nodes.get(owner);
    if (node != null) {
      node.removeDependent(dependent);
      dropIfUnused(owner, node);
    }
  }

  /** The owners {@code object} names, each once. */
  static Set<String> ownerUids(ObjectMetadata object) {
    Set<String> uids = new LinkedHashSet<>();
    for (OwnerLink link : object.owners()) {
      uids.add(link.uid());
    }
    return uids;
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
    String uid = nodes.key(ref.uid());
    String known = nodes.get(uid).name();
    String name = ref.name().equals(known) ? known : ref.name();
    List<OwnerLink> owners = owners(object.owners());
    List<String> finalizers = values.shared(object.finalizers());
    var annotations = values.shared(object.annotations());
    var labels = values.shared(object.labels());
    if (uid == ref.uid() && name == ref.name() && owners == object.owners() && finalizers == object.finalizers()
        && annotations == object.annotations() && labels == object.labels()) {
      return object;
    }
    return new ObjectMetadata(new ObjectRef(ref.apiVersion(), ref.kind(), ref.namespace(), name, uid),
        object.resourceVersion(), owners, finalizers, object.deletionTimestamp(),
        object.deletionGracePeriodSeconds(), annotations, labels);
  }

  private List<OwnerLink> owners(List<OwnerLink> links) {
    if (links.size() == 1) {
      Node owner = getOrAdd(links.get(0).uid());
      if (owner.asOwner == null) {
        owner.asOwner = List.of(link(links.get(0), owner));
      }
      return owner.asOwner.get(0).equals(links.get(0)) ? owner.asOwner : List.of(link(links.get(0), owner));
    }
    List<OwnerLink> shared = new ArrayList<>(links.size());
    for (OwnerLink link : links) {
      Node owner = getOrAdd(link.uid());
      boolean canonical = owner.asOwner != null && owner.asOwner.get(0).equals(link);
      shared.add(canonical ? owner.asOwner.get(0) : link(link, owner));
    }
    return shared;
  }

  /** {@code link} with the owner's uid and name instances. */
  private OwnerLink link(OwnerLink link, Node owner) {
    String known = owner.name();
    String name = link.name().equals(known) ? known : link.name();
    return new OwnerLink(nodes.key(link.uid()), link.apiVersion(), link.kind(), name);
  }
}
