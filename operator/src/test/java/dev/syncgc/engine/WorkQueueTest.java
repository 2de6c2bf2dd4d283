package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.metrics.SyncgcMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The work queue's promises to the engine: one worker per key at a time, a key added while it is
 * processed is processed again afterwards, no key is lost, delayed adds merge (the earliest wins).
 * Time is real but only ever waited for with a deadline; no assertion is an upper bound on time.
 */
class WorkQueueTest {
  private static final Duration LONG = Duration.ofHours(1);

  private final WorkQueue queue = new WorkQueue(Duration.ofMillis(40), Duration.ofSeconds(10));
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    queue.shutdown();
    threads.shutdownNow();
  }

  /** The next key, taken by a worker on another thread. */
  private Future<String> worker() {
    return threads.submit(queue::take);
  }

  private static String within(Future<String> taken, Duration deadline) throws Exception {
    return taken.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The worker is still waiting after a while: nothing was handed out (a lower bound only). */
  private static void stillWaiting(Future<String> taken, String message) throws Exception {
    assertThrows(TimeoutException.class, () -> taken.get(200, TimeUnit.MILLISECONDS), message);
  }

  private String takeWithin(Duration deadline) throws Exception {
    return within(worker(), deadline);
  }

  @Test
  void addsRetriesTimeInQueueAndWorkAreMetered() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WorkQueue metered = new WorkQueue(Duration.ofMillis(1), Duration.ofMillis(10),
        new SyncgcMetrics(registry).queueMeters());
    try {
      metered.add("a");
      metered.add("a"); // already waiting: not added again
      assertEquals("a", metered.take());
      metered.addWithBackoff("a");
      metered.done("a");
      String scrape = registry.scrape();
      assertTrue(scrape.contains("\nsyncgc_queue_adds_total 1.0\n"), scrape);
      assertTrue(scrape.contains("\nsyncgc_queue_retries_total 1.0\n"), scrape);
      assertTrue(scrape.contains("\nsyncgc_queue_duration_seconds_count 1\n"), scrape);
      assertTrue(scrape.contains("\nsyncgc_queue_work_duration_seconds_count 1\n"), scrape);
      assertTrue(scrape.contains("# TYPE syncgc_queue_duration_seconds histogram"), scrape);

      assertEquals("a", within(threads.submit(metered::take), Duration.ofSeconds(10))); // the retry, once due
      scrape = registry.scrape();
      assertTrue(scrape.contains("\nsyncgc_queue_adds_total 2.0\n"), scrape);
      assertTrue(scrape.contains("\nsyncgc_queue_duration_seconds_count 2\n"), scrape);
    } finally {
      metered.shutdown();
    }
  }

  @Test
  void aKeyIsHandedOutOnceHoweverOftenItWasAdded() throws Exception {
    queue.add("a");
    queue.add("a");
    queue.add("b");

    assertEquals("a", queue.take());
    assertEquals("b", queue.take());
    assertEquals(0, queue.depth(), "the second add of a was merged into the first");
  }

  @Test
  void aKeyAddedWhileProcessedGoesToNoOtherWorkerAndComesBackAfterDone() throws Exception {
    queue.add("a");
    assertEquals("a", queue.take());

    queue.add("a"); // an event while a worker holds it
    queue.add("b");
    assertEquals("b", queue.take(), "a is not handed to a second worker while the first holds it");
    Future<String> second = worker();
    stillWaiting(second, "nor later, until the first worker is done");

    queue.done("a");
    assertEquals("a", within(second, Duration.ofSeconds(10)), "processed again after it was done");
  }

  @Test
  void aKeyNotAddedWhileProcessedIsNotProcessedAgain() throws Exception {
    queue.add("a");
    assertEquals("a", queue.take());
    queue.done("a");

    assertEquals(0, queue.depth());
    stillWaiting(worker(), "a was done and not added again");
  }

  @Test
  void delayedAddsMergeAndTheEarliestWins() throws Exception {
    queue.addAfter("a", LONG);
    queue.addAfter("a", Duration.ofMillis(20));
    assertEquals("a", takeWithin(Duration.ofSeconds(10)), "the earlier add replaced the hour");
    queue.done("a");

    queue.addAfter("b", Duration.ofMillis(20));
    queue.addAfter("b", LONG); // a later one must not push it back
    assertEquals("b", takeWithin(Duration.ofSeconds(10)));
    queue.done("b");
    stillWaiting(worker(), "b was handed out once, not once per add");
  }

  @Test
  void backoffDoublesWithEachFailureAndForgetStartsItAgain() throws Exception {
    for (int failure = 1; failure <= 3; failure++) {
      long start = System.nanoTime();
      queue.addWithBackoff("a");
      assertEquals("a", takeWithin(Duration.ofSeconds(10)));
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      long base = 40L << (failure - 1);
      assertTrue(waitedMillis >= base, "failure " + failure + " waited " + waitedMillis + " ms, not " + base);
      queue.done("a");
    }
    queue.resetBackoff("a");
    queue.addWithBackoff("a"); // 40 ms again; had forget not reset it, 320 ms
    queue.addAfter("other", Duration.ofMillis(150));
    assertEquals("a", takeWithin(Duration.ofSeconds(10)), "after forget the backoff starts from 40 ms");
  }

  @Test
  void shutdownWakesWaitingWorkersWithNull() throws Exception {
    Future<String> waiting = threads.submit(queue::take);
    queue.shutdown();

    assertNull(waiting.get(10, TimeUnit.SECONDS));
    queue.add("a");
    assertNull(queue.take(), "nothing is handed out after shutdown");
  }

  /**
   * Many workers and writers: no key is ever held by two workers, and every add is followed by a
   * processing that began after it (no lost update).
   */
  @Test
  void underContentionNoKeyIsProcessedTwiceAtOnceAndNoAddIsLost() throws Exception {
    int keys = 20;
    int addsPerWriter = 2_000;
    Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
    Map<String, AtomicLong> added = new ConcurrentHashMap<>();
    Map<String, AtomicLong> processedUpTo = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    for (int k = 0; k < keys; k++) {
      holders.put("k" + k, new AtomicInteger());
      added.put("k" + k, new AtomicLong());
      processedUpTo.put("k" + k, new AtomicLong());
    }
    List<Future<?>> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      workers.add(threads.submit(() -> {
        String key;
        while ((key = queue.take()) != null) {
          if (holders.get(key).incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          long version = added.get(key).get(); // every add up to this one is seen by this processing
          Thread.onSpinWait();
          processedUpTo.get(key).accumulateAndGet(version, Math::max);
          holders.get(key).decrementAndGet();
          queue.done(key);
        }
        return null;
      }));
    }
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      int seed = w;
      writers.add(threads.submit(() -> {
        for (int i = 0; i < addsPerWriter; i++) {
          String key = "k" + ((i * 7 + seed) % keys);
          added.get(key).incrementAndGet();
          queue.add(key);
        }
        return null;
      }));
    }
    for (Future<?> f : writers) {
      f.get(60, TimeUnit.SECONDS);
    }
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> added.entrySet().stream()
        .allMatch(e -> processedUpTo.get(e.getKey()).get() == e.getValue().get()));

    assertEquals(0, overlaps.get(), "a key was processed by two workers at once");
    queue.shutdown();
    for (Future<?> f : workers) {
      f.get(10, TimeUnit.SECONDS);
    }
  }

  /** What liveness reads: how many wait, since when, and when a worker last finished one. */
  @Test
  void progressTellsHowManyWaitSinceWhenAndWhenAWorkerLastFinished() throws Exception {
    WorkQueue.Progress start = queue.progress();
    assertEquals(0, start.waiting());

    long beforeAdd = System.nanoTime();
    queue.add("a");
    queue.add("b");
    WorkQueue.Progress waiting = queue.progress();
    assertEquals(2, waiting.waiting());
    assertTrue(waiting.waitingSinceNanos() - beforeAdd >= 0, "timed from the first add to an empty queue");
    assertEquals(start.lastDoneNanos(), waiting.lastDoneNanos(), "nothing finished yet");

    String key = queue.take();
    assertEquals(1, queue.progress().waiting(), "a key taken no longer waits");
    assertEquals(waiting.waitingSinceNanos(), queue.progress().waitingSinceNanos(),
        "still non-empty: still waiting since the first add");
    long beforeDone = System.nanoTime();
    queue.done(key);
    assertTrue(queue.progress().lastDoneNanos() - beforeDone >= 0, "done is progress");

    queue.done(queue.take());
    assertEquals(0, queue.progress().waiting());
    long beforeNext = System.nanoTime();
    queue.add("c");
    assertTrue(queue.progress().waitingSinceNanos() - beforeNext >= 0,
        "waiting counted afresh once the queue had emptied");
  }
}
