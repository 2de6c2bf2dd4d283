package dev.syncgc.engine;

import dev.syncgc.metrics.QueueMeters;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A work queue as client-go's: a key is never processed by two workers at once, a key added while
 * it is processed is processed again afterwards, delayed adds are merged (the earliest wins), and
 * failures back off exponentially per key. Metered as client-go's ({@link QueueMeters}).
 */
public final class WorkQueue {
  private record Delayed(long readyAtNanos, String key) {}

  /**
   * For liveness: objects ready that no worker has taken, since when there have been some, and when
   * a worker last finished one ({@link System#nanoTime()} units).
   */
  public record Progress(int waiting, long waitingSinceNanos, long lastDoneNanos) {}

  private final ArrayDeque<String> ready = new ArrayDeque<>();
  private final Set<String> dirty = new HashSet<>();
  private final Set<String> processing = new HashSet<>();
  private final PriorityQueue<Delayed> delayed =
      new PriorityQueue<>((a, b) -> Long.compare(a.readyAtNanos, b.readyAtNanos));
  private final Map<String, Long> delayedAt = new HashMap<>();
  private final Map<String, Integer> failures = new HashMap<>();
  private final Duration baseBackoff;
  private final Duration maxBackoff;
  private final QueueMeters meters;
  /** When each key waiting for a worker was added, and when each key being processed was taken. */
  private final Map<String, Long> addedAt = new HashMap<>();
  private final Map<String, Long> takenAt = new HashMap<>();
  private boolean shutdown;
  private long waitingSinceNanos = System.nanoTime();
  private long lastDoneNanos = waitingSinceNanos;

  public WorkQueue(Duration baseBackoff, Duration maxBackoff) {
    this(baseBackoff, maxBackoff, QueueMeters.none());
  }

  public WorkQueue(Duration baseBackoff, Duration maxBackoff, QueueMeters meters) {
    this.baseBackoff = baseBackoff;
    this.maxBackoff = maxBackoff;
    this.meters = meters;
  }

  public synchronized void add(String key) {
    if (shutdown || !dirty.add(key)) {
      return;
    }
    meters.added();
    addedAt.putIfAbsent(key, System.nanoTime());
    if (!processing.contains(key)) {
      addReady(key);
    }
  }

  private void addReady(String key) {
    if (ready.isEmpty()) {
      waitingSinceNanos = System.nanoTime();
    }
    ready.add(key);
    notifyAll();
  }

  public synchronized void addAfter(String key, Duration delay) {
    if (delay.isZero() || delay.isNegative()) {
      add(key);
      return;
    }
    long at = System.nanoTime() + delay.toNanos();
    Long existing = delayedAt.get(key);
    if (existing != null && existing - at <= 0) {
      return;
    }
    delayedAt.put(key, at);
    delayed.add(new Delayed(at, key));
    notifyAll();
  }

  /** Adds the key again after a delay that doubles with each consecutive failure. */
  public synchronized void addWithBackoff(String key) {
    meters.retried();
    int n = failures.merge(key, 1, Integer::sum);
    long nanos = baseBackoff.toNanos() << Math.min(n - 1, 30);
    addAfter(key, Duration.ofNanos(Math.min(nanos, maxBackoff.toNanos())));
  }

  /** The key succeeded: its next failure starts from the base backoff again. */
  public synchronized void resetBackoff(String key) {
    failures.remove(key);
  }

  /** Blocks for the next key; null once shut down. */
  public synchronized String take() throws InterruptedException {
    while (true) {
      promoteDue();
      if (shutdown) {
        return null;
      }
      String key = ready.poll();
      if (key != null) {
        dirty.remove(key);
        processing.add(key);
        long now = System.nanoTime();
        Long added = addedAt.remove(key);
        if (added != null) {
          meters.waited(now - added);
        }
        takenAt.put(key, now);
        return key;
      }
      Delayed next = delayed.peek();
      if (next == null) {
        wait();
      } else {
        long nanos = next.readyAtNanos - System.nanoTime();
        if (nanos > 0) {
          wait(Math.max(1, nanos / 1_000_000), 0);
        }
      }
    }
  }

  private void promoteDue() {
    long now = System.nanoTime();
    Delayed next;
    while ((next = delayed.peek()) != null && next.readyAtNanos - now <= 0) {
      delayed.poll();
      Long at = delayedAt.get(next.key);
      if (at != null && at == next.readyAtNanos) {
        delayedAt.remove(next.key);
        add(next.key);
      }
    }
  }

  public synchronized void done(String key) {
    processing.remove(key);
    lastDoneNanos = System.nanoTime();
    Long taken = takenAt.remove(key);
    if (taken != null) {
      meters.worked(lastDoneNanos - taken);
    }
    if (dirty.contains(key)) {
      addReady(key);
    }
  }

  public synchronized Progress progress() {
    return new Progress(ready.size(), waitingSinceNanos, lastDoneNanos);
  }

  /** Objects waiting for a worker, not counting those delayed (exported as {@code syncgc_queue_depth}). */
  public synchronized int depth() {
    return ready.size();
  }

  /** Whether {@link #shutdown} was called: the workers stop (this replica stops leading, or exits). */
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  public synchronized void shutdown() {
    shutdown = true;
    notifyAll();
  }
}
