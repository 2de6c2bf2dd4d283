package dev.syncgc.core.deletion;

import java.time.Instant;

/**
 * Why the last API call on an object failed, and when: what the planner names as the blocker, and
 * what excuses a dependent at a Release deadline. Only a failure that still holds excuses one: a call
 * that failed at or after the deadline (it was tried again then), never one from long before, which
 * would leave the dependent behind for good.
 */
@FunctionalInterface
public interface Failures {
  /** No call failed. */
  Failures NONE = uid -> null;

  /** Why the last call on the object (by uid) failed, or null. */
  String why(String uid);

  /** When it failed, or null when not known (it then counts as failing now). */
  default Instant at(String uid) {
    return null;
  }

  /** Whether the object's last call failed at or after {@code since}: a failure that still holds then. */
  default boolean since(String uid, Instant since) {
    if (why(uid) == null) {
      return false;
    }
    Instant at = at(uid);
    return at == null || !at.isBefore(since);
  }
}
