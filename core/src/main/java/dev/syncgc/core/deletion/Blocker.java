package dev.syncgc.core.deletion;

import dev.syncgc.core.model.ObjectRef;

/**
 * What an owner still waits for, and why: a dependent still in the store, or (with no {@code ref})
 * a part of the cluster syncgc could not check for dependents it has not seen.
 */
public record Blocker(ObjectRef ref, String why) {

  /** A kind that could not be listed: the owner cannot be sure no unseen dependent exists. */
  public static Blocker unverified(String why) {
    return new Blocker(null, why);
  }

  @Override
  public String toString() {
    return ref == null ? why : ref + " (" + why + ")";
  }
}
