package dev.syncgc.engine;

import dev.syncgc.core.model.ObjectMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

/**
 * The owners syncgc holds while their dependents go, and the age of the oldest of them: the time
 * since its {@code deletionTimestamp}, when the deletion was asked for. The API server set that
 * time, so the age goes on across a restart or a failover of the operator, and it is the time
 * {@code syncgc_deletion_duration_seconds} and {@code kubectl syncgc status} count from. A Pod
 * deleted with a grace period has its deletionTimestamp at the end of the grace period: its age
 * counts from there.
 */
final class DeletionsInProgress {
  private final ObjectStates states;
  private final Function<String, ObjectMetadata> objects;
  private final Clock clock;

  /**
   * @param states where the mark is kept (it goes with the object's record)
   * @param objects an object of the graph by uid, null once it is gone
   */
  DeletionsInProgress(ObjectStates states, Function<String, ObjectMetadata> objects, Clock clock) {
    this.states = states;
    this.objects = objects;
    this.clock = clock;
  }

  void add(String uid) {
    states.of(uid).inProgress = true;
  }

  void remove(String uid) {
    ObjectStates.State state = states.peek(uid);
    if (state != null) {
      state.inProgress = false;
    }
  }

  int count() {
    return (int) states.all().stream().filter(e -> e.getValue().inProgress).count();
  }

  /**
   * Seconds from the earliest deletionTimestamp among the owners in progress to now; 0 when none is
   * in progress, and never below 0 (a deletionTimestamp ahead of this clock).
   */
  double oldestAgeSeconds() {
    Instant oldest = null;
    for (var e : states.all()) {
      ObjectMetadata owner = e.getValue().inProgress ? objects.apply(e.getKey()) : null;
      Instant at = owner == null ? null : owner.deletionTimestamp();
      if (at != null && (oldest == null || at.isBefore(oldest))) {
        oldest = at;
      }
    }
    if (oldest == null) {
      return 0;
    }
    Duration age = Duration.between(oldest, clock.instant());
    return age.isNegative() ? 0 : age.toMillis() / 1000.0;
  }
}
