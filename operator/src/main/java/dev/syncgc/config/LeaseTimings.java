package dev.syncgc.config;

import java.time.Duration;

/**
 * The leader-election Lease's timings, all from its duration in client-go's proportions (15 s, renew
 * deadline 10 s, retry period 2 s), and the pause after which this process trusts neither its view
 * nor its Lease ({@code PauseWatch}): at most 5 s, and at most half of what a Lease renewed one retry
 * period ago has left, so that a paused leader notices before another replica can have taken over.
 *
 * @param duration how long a Lease holds without renewal: a standby takes over that long after the
 *     leader stopped renewing (a SIGKILL, a lost node)
 */
public record LeaseTimings(Duration duration, Duration renewDeadline, Duration retryPeriod, Duration pauseLimit) {
  public static final Duration DEFAULT = Duration.ofSeconds(15);
  /** Below it the retry period (2/15 of it) and the pause limit leave no room for a JVM's pauses. */
  public static final Duration MINIMUM = Duration.ofSeconds(6);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(5);

  public static LeaseTimings of(Duration duration) {
    if (duration.compareTo(MINIMUM) < 0) {
      throw new IllegalArgumentException("a Lease duration of at least " + MINIMUM.toSeconds() + "s, got "
          + duration.toMillis() + " ms");
    }
    Duration renew = duration.multipliedBy(2).dividedBy(3);
    Duration retry = duration.multipliedBy(2).dividedBy(15);
    Duration half = duration.minus(retry).dividedBy(2);
    return new LeaseTimings(duration, renew, retry, half.compareTo(MAX_PAUSE) < 0 ? half : MAX_PAUSE);
  }
}
