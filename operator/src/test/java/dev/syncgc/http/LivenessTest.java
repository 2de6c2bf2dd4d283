package dev.syncgc.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.http.Liveness.Verdict;
import dev.syncgc.kube.reflector.Watches;
import dev.syncgc.http.Liveness.Work;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The liveness judgement as pure logic, on a clock the test moves. */
class LivenessTest {
  private static final Duration STALL = Duration.ofMinutes(5);
  private static final Duration WATCH = Duration.ofMinutes(5);
  /** nanoTime may be negative, and may wrap: judge by differences only. */
  private static final long T0 = Long.MAX_VALUE - Duration.ofMinutes(1).toNanos();

  private static long at(Duration d) {
    return T0 + d.toNanos();
  }

  private static Duration min(long m) {
    return Duration.ofMinutes(m);
  }

  // --- workers

  @Test
  void idleOperatorIsAliveHoweverLongSinceItsLastSync() {
    Work idle = new Work(true, T0, 0, T0, T0);
    assertTrue(Liveness.judgeWork(idle, at(Duration.ofDays(3)), STALL).alive());
  }

  @Test
  void standbyReplicaWithQueuedWorkAndNoWorkersIsAlive() {
    Work standby = new Work(false, 0, 5_000, T0, T0);
    assertTrue(Liveness.judgeWork(standby, at(Duration.ofHours(2)), STALL).alive());
  }

  @Test
  void slowButProgressingOperatorIsAliveWhileWorkWaitsForHours() {
    // 100,000 objects waiting for two hours, but a sync finished 4 minutes ago: slow, not wedged
    Work slow = new Work(true, T0, 100_000, T0, at(min(116)));
    assertTrue(Liveness.judgeWork(slow, at(min(120)), STALL).alive());
  }

  @Test
  void workWaitingWithNoSyncFinishedForLongerThanTheThresholdIsWedged() {
    Work stuck = new Work(true, T0, 42, at(min(10)), at(min(9)));
    Verdict v = Liveness.judgeWork(stuck, at(min(16)), STALL);
    assertFalse(v.alive());
    assertTrue(v.reason().contains("no progress for 360s while 42 objects wait"), v.reason());
    assertTrue(v.reason().contains("threshold 300s"), v.reason());
  }

  @Test
  void theThresholdCountsFromWhenWorkStartedWaitingNotFromTheLastSync() {
    // idle for an hour, then work arrives: the hour of idleness does not count against it
    Work justQueued = new Work(true, T0, 3, at(min(60)), T0);
    assertTrue(Liveness.judgeWork(justQueued, at(min(64)), STALL).alive());
    assertFalse(Liveness.judgeWork(justQueued, at(min(66)), STALL).alive());
  }

  @Test
  void theThresholdCountsFromTheWorkersStartAfterALongStartUpOrTakingTheLease() {
    Work leading = new Work(true, at(min(30)), 10_000, T0, T0);
    assertTrue(Liveness.judgeWork(leading, at(min(34)), STALL).alive());
    assertFalse(Liveness.judgeWork(leading, at(min(36)), STALL).alive());
  }

  @ParameterizedTest(name = "stalled {0} s of a 300 s threshold")
  @ValueSource(longs = {0, 1, 299, 300})
  void upToTheThresholdItIsAlive(long seconds) {
    Work w = new Work(true, T0, 1, T0, T0);
    assertTrue(Liveness.judgeWork(w, T0 + Duration.ofSeconds(seconds).toNanos(), STALL).alive());
  }

  // --- watches

  @Test
  void oneKindsWatchFailingForeverNeverFailsLiveness() {
    assertTrue(Liveness.judgeWatches(new Watches(12, 11), T0, at(Duration.ofDays(1)), WATCH).alive());
  }

  @Test
  void everyWatchDownForLongerThanTheThresholdIsWedged() {
    Verdict v = Liveness.judgeWatches(new Watches(12, 0), T0, at(min(6)), WATCH);
    assertFalse(v.alive());
    assertTrue(v.reason().contains("none of the 12 watches has run for 360s"), v.reason());
    assertTrue(Liveness.judgeWatches(new Watches(12, 0), T0, at(min(4)), WATCH).alive());
  }

  @Test
  void noInformersAtAllIsNotASignOfAnything() {
    assertTrue(Liveness.judgeWatches(new Watches(0, 0), T0, at(min(60)), WATCH).alive());
  }

  // --- the stateful check, as /healthz calls it

  @Test
  void watchesDownAreTimedFromTheFirstCheckThatSeesThemDownAndAReconnectResetsIt() {
    AtomicLong now = new AtomicLong(T0);
    AtomicReference<Watches> watches = new AtomicReference<>(new Watches(3, 3));
    Liveness liveness = new Liveness(WATCH, STALL, now::get, () -> true, watches::get,
        () -> new Work(true, T0, 0, T0, T0));

    assertTrue(liveness.check().alive());
    watches.set(new Watches(3, 0)); // the API server went away
    now.set(at(min(1)));
    assertTrue(liveness.check().alive());
    now.set(at(min(5)));
    assertTrue(liveness.check().alive(), "4 minutes down");
    now.set(at(min(7)));
    assertFalse(liveness.check().alive(), "6 minutes down");

    watches.set(new Watches(3, 1)); // one reconnected
    assertTrue(liveness.check().alive());
    watches.set(new Watches(3, 0)); // down again: counted afresh
    now.set(at(min(10)));
    assertTrue(liveness.check().alive());
    now.set(at(min(16)));
    assertFalse(liveness.check().alive());
  }

  @Test
  void watchesAreNotJudgedDuringStartUpWhileTheInitialListsRun() {
    AtomicLong now = new AtomicLong(T0);
    AtomicBoolean started = new AtomicBoolean(false);
    Liveness liveness = new Liveness(WATCH, STALL, now::get, started::get, () -> new Watches(40, 0),
        () -> new Work(false, 0, 0, T0, T0));
    now.set(at(min(20)));
    assertTrue(liveness.check().alive(), "a 20-minute start-up is bounded by its own timeouts");
    started.set(true);
    assertTrue(liveness.check().alive(), "timed from the first check after start-up");
    now.set(at(min(26)));
    assertEquals(false, liveness.check().alive());
  }

  @Test
  void aStalledWorkQueueFailsTheCheckEvenBeforeStartUpIsOver() {
    AtomicLong now = new AtomicLong(at(min(10)));
    Liveness liveness = new Liveness(WATCH, STALL, now::get, () -> false, () -> new Watches(0, 0),
        () -> new Work(true, T0, 7, T0, T0));
    Verdict v = liveness.check();
    assertFalse(v.alive());
    assertTrue(v.reason().startsWith("the workers made no progress"), v.reason());
  }
}
