package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A pause of the process is noticed by the first write after it, before the heartbeat runs again. */
class PauseWatchTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  @Test
  void noWriteGoesAfterAPauseFromItsFirstMomentAndForGood() {
    PauseWatch watch = new PauseWatch(now::get, Duration.ofSeconds(5));
    watch.start(() -> { });
    try {
      now.addAndGet(Duration.ofMillis(250).toNanos());
      watch.beat();
      assertNull(watch.paused(), "a heartbeat on time");

      now.addAndGet(Duration.ofSeconds(7).toNanos()); // SIGSTOP, then SIGCONT: no heartbeat ran meanwhile
      String why = watch.paused();
      assertNotNull(why, "the first write after the pause must not go");
      assertTrue(why.startsWith("this process was paused for 7 s"), why);

      assertTrue(watch.beat(), "the heartbeat notices it too");
      now.addAndGet(Duration.ofMillis(250).toNanos());
      assertFalse(watch.beat());
      assertNotNull(watch.paused(), "and it stays so: the process exits");
    } finally {
      watch.close();
    }
  }

  @Test
  void anUnwatchedProcessIsNeverTakenForPaused() {
    PauseWatch watch = new PauseWatch(now::get, Duration.ofSeconds(5));
    now.addAndGet(Duration.ofMinutes(1).toNanos());
    assertNull(watch.paused(), "not started (tests that build an engine without it)");
  }

  @Test
  void theHeartbeatRunsTheActionOnceWhenItNoticesAPause() throws Exception {
    CountDownLatch noticed = new CountDownLatch(1);
    PauseWatch watch = new PauseWatch(now::get, Duration.ofSeconds(5));
    watch.start(noticed::countDown);
    try {
      now.addAndGet(Duration.ofSeconds(6).toNanos());
      assertTrue(noticed.await(5, TimeUnit.SECONDS), "the heartbeat thread ran the action");
    } finally {
      watch.close();
    }
  }
}
