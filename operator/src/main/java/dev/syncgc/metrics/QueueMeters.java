package dev.syncgc.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;

/**
 * The work queue's meters, as client-go's workqueue metrics under syncgc's prefix:
 * {@code syncgc_queue_adds_total}, {@code syncgc_queue_retries_total},
 * {@code syncgc_queue_duration_seconds} (time a key waited for a worker) and
 * {@code syncgc_queue_work_duration_seconds} (time a worker spent on it). The depth is
 * {@code syncgc_queue_depth} ({@link SyncgcMetrics#gauges}).
 */
public final class QueueMeters {
  private final Counter adds;
  private final Counter retries;
  private final Timer waited;
  private final Timer worked;

  QueueMeters(MeterRegistry registry) {
    adds = Counter.builder("syncgc.queue.adds")
        .description("Keys added to the work queue (a key already waiting is not added again)").register(registry);
    retries = Counter.builder("syncgc.queue.retries")
        .description("Keys put back with backoff: the sync failed or asked to look again").register(registry);
    waited = timer(registry, "syncgc.queue.duration", "Time a key waited in the work queue before a worker took it");
    worked = timer(registry, "syncgc.queue.work.duration", "Time a worker spent on one key");
  }

  /** Meters that record nothing (a queue without a registry: tests, tools). */
  public static QueueMeters none() {
    return new QueueMeters(new CompositeMeterRegistry());
  }

  /** A histogram of durations from 100 µs to 10 min. */
  private static Timer timer(MeterRegistry registry, String name, String description) {
    return Timer.builder(name).description(description).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(100_000)).maximumExpectedValue(Duration.ofMinutes(10))
        .register(registry);
  }

  public void added() {
    adds.increment();
  }

  public void retried() {
    retries.increment();
  }

  public void waited(long nanos) {
    waited.record(Duration.ofNanos(nanos));
  }

  public void worked(long nanos) {
    worked.record(Duration.ofNanos(nanos));
  }
}
