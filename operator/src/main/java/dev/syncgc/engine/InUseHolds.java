package dev.syncgc.engine;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.usage.Uses;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * The objects held in use now (SPEC "In use"), by name: a user that changes or goes makes the objects
 * it names (before and after) be looked at again at once, so that a used object proceeds within
 * moments of its last user going, not at the next recheck. Also what the in-use metrics count.
 */
final class InUseHolds {
  private record Held(String name, long sinceNanos, Instant deletedAt) {}

  private final ConcurrentHashMap<String, Held> byUid = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Set<String>> byName = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;
  private final Clock clock;

  InUseHolds(LongSupplier nanoTime, Clock clock) {
    this.nanoTime = nanoTime;
    this.clock = clock;
  }

  /** The object waits for its users; true the first time (the hold begins). */
  boolean hold(ObjectMetadata used) {
    String name = used.ref().name();
    if (byUid.putIfAbsent(used.uid(), new Held(name, nanoTime.getAsLong(), used.deletionTimestamp())) != null) {
      return false;
    }
    byName.computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet()).add(used.uid());
    return true;
  }

  /** The object no longer waits (or is gone): how long it was held, or null if it was not. */
  Duration release(String uid) {
    Held held = byUid.remove(uid);
    if (held == null) {
      return null;
    }
    byName.computeIfPresent(held.name(), (k, uids) -> {
      uids.remove(uid);
      return uids.isEmpty() ? null : uids;
    });
    return Duration.ofNanos(nanoTime.getAsLong() - held.sinceNanos());
  }

  /** Unless the object is still held: its hold, if it had one, ends ({@code ended} is told how long it lasted). */
  void endUnless(boolean held, ObjectMetadata used, BiConsumer<ObjectMetadata, Duration> ended) {
    Duration lasted = held ? null : release(used.uid());
    if (lasted != null) {
      ended.accept(used, lasted);
    }
  }

  /**
   * The held objects that a user changing from {@code before} to {@code after} (either null) may have
   * named: those of a name either version's {@code syncgc.dev/uses} names.
   */
  Collection<String> namedBy(ObjectMetadata before, ObjectMetadata after) {
    if (byUid.isEmpty()) {
      return List.of();
    }
    Set<String> uids = new java.util.HashSet<>();
    for (ObjectMetadata o : new ObjectMetadata[] {before, after}) {
      if (o != null && o.annotation(Names.USES) != null) {
        for (String name : Uses.parse(o.annotation(Names.USES)).names()) {
          uids.addAll(byName.getOrDefault(name, Set.of()));
        }
      }
    }
    return uids;
  }

  int count() {
    return byUid.size();
  }

  /**
   * Seconds since the deletion of the oldest object held in use now, 0 when none: counted from its
   * deletionTimestamp (a hold begins then at the latest), so it goes on across restarts and failovers.
   */
  double oldestAgeSeconds() {
    Instant now = clock.instant();
    return byUid.values().stream().map(Held::deletedAt).filter(java.util.Objects::nonNull)
        .mapToLong(at -> Duration.between(at, now).toMillis()).max().orElse(0) / 1e3;
  }
}
