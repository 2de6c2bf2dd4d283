package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import java.util.ArrayList;
import java.util.List;

/**
 * Which owner references Kubernetes would honour, judged when asked (the kinds as known now, the owner
 * as the graph holds it). An invalid reference is never followed. The graph's monitor guards it.
 */
final class LinkRules {
  private final KindInfo kinds;
  private final NodeTable nodes;

  LinkRules(KindInfo kinds, NodeTable nodes) {
    this.kinds = kinds;
    this.nodes = nodes;
  }

  /** The observed objects naming {@code owner} (null: none known), through a valid reference only or any. */
  List<ObjectMetadata> dependents(Node owner, boolean validOnly) {
    if (owner == null || owner.dependents == null) {
      return List.of();
    }
    List<ObjectMetadata> result = new ArrayList<>(owner.dependents.size());
    for (Node d : owner.dependents) {
      if (!validOnly || followed(d.meta, owner)) {
        result.add(d.meta);
      }
    }
    return result;
  }

  /** Whether any observed object names {@code owner} (null: none known) through a valid reference. */
  boolean anyFollowed(Node owner) {
    if (owner == null || owner.dependents == null) {
      return false;
    }
    for (Node d : owner.dependents) {
      if (followed(d.meta, owner)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code dependent} names {@code owner} through a valid reference. */
  boolean followed(ObjectMetadata dependent, Node owner) {
    for (OwnerLink link : dependent.owners()) {
      if (owner.namedBy(link) && validity(dependent, link) == LinkValidity.VALID) {
        return true;
      }
    }
    return false;
  }

  LinkValidity validity(ObjectMetadata dependent, OwnerLink link) {
    Scope scope = kinds.scope(link);
    if (scope == Scope.UNKNOWN) {
      return LinkValidity.UNKNOWN_KIND;
    }
    if (scope == Scope.NAMESPACED) {
      if (!dependent.ref().namespaced()) {
        return LinkValidity.CLUSTER_SCOPED_DEPENDENT;
      }
      Node owner = nodes.get(link);
      if (owner != null && owner.meta != null
          && !dependent.ref().namespace().equals(owner.meta.ref().namespace())) {
        return LinkValidity.OWNER_IN_OTHER_NAMESPACE;
      }
    }
    return LinkValidity.VALID;
  }
}
