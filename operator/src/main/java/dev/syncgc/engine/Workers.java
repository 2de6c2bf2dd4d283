package dev.syncgc.engine;

import dev.syncgc.http.Liveness;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker threads: each takes an object off the queue, syncs it (one worker per object at a time,
 * the queue sees to it), and puts it back with backoff when the sync asks to look again or failed.
 */
final class Workers {
  private static final Logger log = LoggerFactory.getLogger(Workers.class);
  private static final TestWedge WEDGE = TestWedge.fromEnvironment();

  private final WorkQueue queue;
  private final Predicate<String> sync;
  private final int count;
  private final List<Thread> threads = new ArrayList<>();
  /** For liveness: whether the workers run, and since when ({@link System#nanoTime()}). */
  private volatile boolean running;
  private volatile long startedNanos;

  /** @param sync syncs one object (by uid); false: look at it again after a backoff */
  Workers(WorkQueue queue, Predicate<String> sync, int count) {
    this.queue = queue;
    this.sync = sync;
    this.count = count;
  }

  synchronized void start() {
    startedNanos = System.nanoTime();
    running = true;
    for (int i = 0; i < count; i++) {
      Thread t = new Thread(this::work, "worker-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  /** No worker takes another object; a sync in progress finishes. */
  void stop() {
    running = false;
    queue.shutdown();
  }

  /** For liveness: the workers' progress through the queue. */
  Liveness.Work progress() {
    WorkQueue.Progress p = queue.progress();
    return new Liveness.Work(running, startedNanos, p.waiting(), p.waitingSinceNanos(), p.lastDoneNanos());
  }

  private void work() {
    while (true) {
      String uid;
      try {
        uid = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (uid == null) {
        return;
      }
      WEDGE.holdWhileSet();
      try {
        if (sync.test(uid)) {
          queue.resetBackoff(uid);
        } else {
          queue.addWithBackoff(uid);
        }
      } catch (RuntimeException e) {
        log.error("sync failed uid={} error={}", uid, e.toString(), e);
        queue.addWithBackoff(uid);
      } finally {
        queue.done(uid);
      }
    }
  }
}
