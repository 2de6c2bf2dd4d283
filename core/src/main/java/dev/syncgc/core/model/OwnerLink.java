package dev.syncgc.core.model;

import java.util.Objects;

/**
 * One entry of {@code metadata.ownerReferences}. What the owner's kind is (its scope, whether syncgc
 * watches it) is not recorded here: the graph asks {@code KindInfo} when it needs to know, so that a
 * kind defined later (a new CRD) counts as soon as it is known. The uid is held as {@link Uids} keeps
 * it; equal when every part is, as a record.
 */
public final class OwnerLink {
  private final long uidHigh;
  private final long uidLow;
  private final String opaqueUid;
  private final String apiVersion;
  private final String kind;
  private final String name;

  public OwnerLink(String uid, String apiVersion, String kind, String name) {
    boolean canonical = Uids.canonical(Objects.requireNonNull(uid, "uid"));
    this.uidHigh = canonical ? Uids.high(uid) : 0;
    this.uidLow = canonical ? Uids.low(uid) : 0;
    this.opaqueUid = canonical ? null : uid;
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.name = name;
  }

  private OwnerLink(OwnerLink link, String name) {
    this.uidHigh = link.uidHigh;
    this.uidLow = link.uidLow;
    this.opaqueUid = link.opaqueUid;
    this.apiVersion = link.apiVersion;
    this.kind = link.kind;
    this.name = name;
  }

  /** This reference under another name instance (equal or not): the uid is copied, not parsed again. */
  public OwnerLink withName(String name) {
    return new OwnerLink(this, name);
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

  public String apiVersion() {
    return apiVersion;
  }

  public String kind() {
    return kind;
  }

  public String name() {
    return name;
  }

  /** Whether {@code other} names the same owner (by uid, whatever else it says). */
  public boolean namesSameOwner(OwnerLink other) {
    return Uids.same(uidHigh, uidLow, opaqueUid, other.uidHigh, other.uidLow, other.opaqueUid);
  }

  /** Whether this reference names {@code ref}'s object (by uid; no text made). */
  public boolean refersTo(ObjectRef ref) {
    return Uids.same(uidHigh, uidLow, opaqueUid, ref.uidHigh(), ref.uidLow(), ref.opaqueUid());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OwnerLink other && namesSameOwner(other)
        && Objects.equals(apiVersion, other.apiVersion) && Objects.equals(kind, other.kind)
        && Objects.equals(name, other.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(Uids.hash(uidHigh, uidLow, opaqueUid), apiVersion, kind, name);
  }

  @Override
  public String toString() {
    return "OwnerLink[uid=" + uid() + ", apiVersion=" + apiVersion + ", kind=" + kind + ", name=" + name + "]";
  }
}
