package dev.syncgc.engine;

import java.time.Duration;

/**
 * What happens to an object once its sync ran, decided where the sync ran and carried out by
 * {@link Workers} alone (as controller-runtime's reconcile {@code Result}): settled, or to be looked at
 * again after a backoff because a call failed; either way, at the latest after {@code lookAgainIn}
 * (null: only when something about it changes; zero: as soon as the other objects had their turn).
 */
sealed interface Next {
  /** Settled: nothing more to do now. */
  Next DONE = new Done(null);
  /** A call failed or found the facts changed: planned again after a backoff that grows per failure. */
  Next RETRY = new Retry(null);

  Duration lookAgainIn();

  /** Nothing failed. */
  record Done(Duration lookAgainIn) implements Next {}

  /** A call failed, was refused, or found the facts changed since the plan. */
  record Retry(Duration lookAgainIn) implements Next {}

  /** Settled, looked at again after {@code delay}. */
  static Next after(Duration delay) {
    return new Done(delay);
  }

  default boolean retry() {
    return this instanceof Retry;
  }

  /** This, and looked at again after {@code delay} at the latest. */
  default Next by(Duration delay) {
    Duration d = lookAgainIn() == null || delay.compareTo(lookAgainIn()) < 0 ? delay : lookAgainIn();
    return retry() ? new Retry(d) : new Done(d);
  }

  /** Both: a retry if either is, looked at again at the earlier of their times. */
  default Next and(Next other) {
    Next both = retry() || other.retry() ? new Retry(lookAgainIn()) : this;
    return other.lookAgainIn() == null ? both : both.by(other.lookAgainIn());
  }
}
