package dev.syncgc.engine;

import dev.syncgc.core.model.ObjectMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
  private final Set<String> uids = ConcurrentHashMap.newKeySet();
  private final Function<String, ObjectMetadata> objects;
  private final Clock clock;

  /** @param objects an object of the graph by uid, null once it is gone */
  DeletionsInProgress(Function<String, ObjectMetadata> objects, Clock clock) {
    this.objects = objects;
    this.clock = clock;
  }

  void add(String uid) {
    uids.add(uid);
  }

  void remove(String uid) {
    uids.remove(uid);
  }

  int count() {
    return uids.size();
  }

  /**
   * Seconds from the earliest deletionTimestamp among the owners in progress to now; 0 when none is
   * in progress, and never below 0 (a deletionTimestamp ahead of this clock).
   */
  double oldestAgeSeconds() {
    Instant oldest = null;
    for (String uid : uids) {
      ObjectMetadata owner = objects.apply(uid);
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
