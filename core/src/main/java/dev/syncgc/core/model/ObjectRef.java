package dev.syncgc.core.model;

import java.util.Objects;

/**
 * Identifies one object of the cluster. {@code namespace} is null for cluster-scoped objects.
 * Equality is by uid: an object recreated under the same name is a different object. The uid is held
 * as {@link Uids} keeps it and its text made when asked.
 */
public final class ObjectRef {
  private final String apiVersion;
  private final String kind;
  private final String namespace;
  private final String name;
  private final long uidHigh;
  private final long uidLow;
  private final String opaqueUid;

  public ObjectRef(String apiVersion, String kind, String namespace, String name, String uid) {
    this.apiVersion = Objects.requireNonNull(apiVersion, "apiVersion");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.namespace = namespace;
    this.name = Objects.requireNonNull(name, "name");
    boolean canonical = Uids.canonical(Objects.requireNonNull(uid, "uid"));
    this.uidHigh = canonical ? Uids.high(uid) : 0;
    this.uidLow = canonical ? Uids.low(uid) : 0;
    this.opaqueUid = canonical ? null : uid;
  }

  private ObjectRef(String apiVersion, String kind, String namespace, String name, long uidHigh, long uidLow,
      String opaqueUid) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.namespace = namespace;
    this.name = Objects.requireNonNull(name, "name");
    this.uidHigh = uidHigh;
    this.uidLow = uidLow;
    this.opaqueUid = opaqueUid;
  }

  /** This object under another name instance (equal or not): the uid is copied, not parsed again. */
  public ObjectRef withName(String name) {
    return new ObjectRef(apiVersion, kind, namespace, name, uidHigh, uidLow, opaqueUid);
  }

  public String apiVersion() {
    return apiVersion;
  }

  public String kind() {
    return kind;
  }

  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  /** The uid's text, made on each call: inside the graph compare {@link #uidHigh}, {@link #uidLow}. */
  public String uid() {
    return Uids.format(uidHigh, uidLow, opaqueUid);
  }

  public long uidHigh() {
    return uidHigh;
  }

  public long uidLow() {
    return uidLow;
  }

  /** The uid if it is not a canonical UUID, else null. */
  public String opaqueUid() {
    return opaqueUid;
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
    return o instanceof ObjectRef other
        && Uids.same(uidHigh, uidLow, opaqueUid, other.uidHigh, other.uidLow, other.opaqueUid);
  }

  @Override
  public int hashCode() {
    return Uids.hash(uidHigh, uidLow, opaqueUid);
  }

  /** kind/namespace/name, as users read it in Events and logs. */
  @Override
  public String toString() {
    return namespace == null ? kind + "/" + name : kind + "/" + namespace + "/" + name;
  }
}
