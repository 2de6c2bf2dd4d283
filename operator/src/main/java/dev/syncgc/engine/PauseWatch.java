package dev.syncgc.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that this process was paused (SIGSTOP, a frozen VM or node, a very long GC): a heartbeat
 * every {@value #BEAT_MILLIS} ms, and a gap longer than the limit means that everything this replica
 * knows is that old. Its Lease may have passed to another replica meanwhile, and its graph misses what
 * changed (a later orphan request, a new owner), so no write may go any more: {@link #paused()} says
 * why from the first moment after the pause, before any other thread learns of it, and stays so; the
 * engine then stops its workers and the process exits, to start again with a fresh view (the Lease's
 * own renewal would notice too, but only after the workers had acted for up to its retry period).
 */
final class PauseWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PauseWatch.class);
  private static final long BEAT_MILLIS = 250;

  private final LongSupplier nanoTime;
  private final long limitNanos;
  private final Thread thread;
  private volatile long lastBeat;
  private volatile String paused;
  private volatile Runnable onPause = () -> { };
  private volatile boolean watching;

  PauseWatch(LongSupplier nanoTime, Duration limit) {
    this.nanoTime = nanoTime;
    this.limitNanos = limit.toNanos();
    this.lastBeat = nanoTime.getAsLong();
    this.thread = new Thread(this::run, "pause-watch");
    thread.setDaemon(true);
  }

  /** Starts the heartbeat; {@code onPause} runs once, on its thread, when a pause is noticed. */
  void start(Runnable onPause) {
    this.onPause = onPause;
    lastBeat = nanoTime.getAsLong();
    watching = true;
    thread.start();
  }

  /** Why no write may go: this process was paused past the limit; null if it was not (or is not watched). */
  String paused() {
    String why = paused;
    if (why == null && watching) {
      long gap = nanoTime.getAsLong() - lastBeat;
      if (gap > limitNanos) {
        why = latch(gap);
      }
    }
    return why;
  }

  /** One heartbeat: true if it found the process was paused past the limit since the last one. */
  boolean beat() {
    long now = nanoTime.getAsLong();
    long gap = now - lastBeat;
    lastBeat = now;
    if (gap > limitNanos) {
      latch(gap);
      return true;
    }
    return false;
  }

  private synchronized String latch(long gapNanos) {
    if (paused == null) {
      paused = "this process was paused for " + TimeUnit.NANOSECONDS.toSeconds(gapNanos)
          + " s: its view and its Lease are not to be trusted";
    }
    return paused;
  }

  private void run() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(BEAT_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      if (beat()) {
        log.error("{}; stopping the workers and exiting", paused);
        onPause.run();
        return;
      }
    }
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
