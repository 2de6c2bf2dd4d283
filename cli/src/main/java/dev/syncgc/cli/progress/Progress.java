package dev.syncgc.cli.progress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * How a deletion goes, from what {@code kubectl syncgc delete} reads once a second: the dependents
 * left (the owner's transitive dependents in a fresh snapshot), the total (the operator's
 * {@code syncgc.dev/dependents-at-start} when recorded, else the most seen), the rate over the last
 * {@link #WINDOW} and the time left at that rate, and the blockers in the words of the latest
 * {@code WaitingForDependents} Event. Pure: no clock, no cluster.
 */
public final class Progress {
  /** The rate is measured over this much of the recent past, so that a stall shows soon. */
  public static final Duration WINDOW = Duration.ofSeconds(20);

  /**
   * One look at the owner.
   *
   * @param atStart the owner's {@code dependents-at-start} annotation, null when not recorded (yet)
   * @param blockers the message of its latest {@code WaitingForDependents} Event, null when none
   */
  public record Sample(Instant at, int left, Integer atStart, String blockers) {}

  private final Deque<Sample> recent = new ArrayDeque<>();
  private Sample last;
  private int mostSeen;
  private Integer atStart;

  public void add(Sample s) {
    if (last != null && s.at().isBefore(last.at())) {
      throw new IllegalArgumentException("samples must come in time order");
    }
    last = s;
    mostSeen = Math.max(mostSeen, s.left());
    if (s.atStart() != null) {
      atStart = s.atStart();
    }
    recent.addLast(s);
    while (recent.size() > 2 && Duration.between(recent.peekFirst().at(), s.at()).compareTo(WINDOW) > 0) {
      recent.removeFirst();
    }
  }

  public boolean started() {
    return last != null;
  }

  public int left() {
    return last == null ? 0 : last.left();
  }

  /** Dependents at the start: the operator's count, else the most seen (never fewer than are left). */
  public int total() {
    return Math.max(atStart == null ? mostSeen : atStart, left());
  }

  public int gone() {
    return total() - left();
  }

  /** Dependents gone per second over the recent window; empty until two looks a moment apart. */
  public OptionalDouble rate() {
    if (recent.size() < 2) {
      return OptionalDouble.empty();
    }
    Sample first = recent.peekFirst();
    double seconds = Duration.between(first.at(), last.at()).toMillis() / 1000.0;
    if (seconds <= 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(Math.max(0, first.left() - last.left()) / seconds);
  }

  /** The time left at the current rate; zero when nothing is left, empty when nothing moves. */
  public Optional<Duration> eta() {
    if (last == null) {
      return Optional.empty();
    }
    if (left() == 0) {
      return Optional.of(Duration.ZERO);
    }
    OptionalDouble rate = rate();
    if (rate.isEmpty() || rate.getAsDouble() <= 0) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofMillis(Math.round(left() / rate.getAsDouble() * 1000)));
  }

  public String blockers() {
    return last == null ? null : last.blockers();
  }
}
