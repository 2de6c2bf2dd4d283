package dev.syncgc.core.model;

import java.util.Objects;

/**
 * Identifies one object of the cluster. {@code namespace} is null for cluster-scoped objects.
 * Equality is by uid: an object recreated under the same name is a different object.
 */
public record ObjectRef(String apiVersion, String kind, String namespace, String name, String uid) {

  public ObjectRef {
    Objects.requireNonNull(apiVersion, "apiVersion");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uid, "uid");
  }

  public boolean namespaced() {
    return namespace != null;
  }

  /** The API group, empty for the core group. */
  public String group() {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectRef other && uid.equals(other.uid);
  }

  @Override
  public int hashCode() {
    return uid.hashCode();
  }

  /** kind/namespace/name, as users read it in Events and logs. */
  @Override
  public String toString() {
    return namespace == null ? kind + "/" + name : kind + "/" + namespace + "/" + name;
  }
}
