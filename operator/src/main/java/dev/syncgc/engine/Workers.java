package dev.syncgc.engine;

import dev.syncgc.http.Liveness;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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
  private final Function<String, Next> sync;
  private final int count;
  private final List<Thread> threads = new ArrayList<>();
  /** For liveness: whether the workers run, and since when ({@link System#nanoTime()}). */
  private volatile boolean running;
  private volatile long startedNanos;

  /** @param sync syncs one object (by uid) and says what follows: the only place it becomes queue actions */
  Workers(WorkQueue queue, Function<String, Next> sync, int count) {
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

  private void follow(String uid, Next next) {
    if (next.retry()) {
      queue.addWithBackoff(uid);
    } else {
      queue.resetBackoff(uid);
    }
    if (next.lookAgainIn() != null) {
      queue.addAfter(uid, next.lookAgainIn()); // the earlier of it and the backoff wins
    }
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
        follow(uid, sync.apply(uid));
      } catch (RuntimeException e) {
        log.error("sync failed uid={} error={}", uid, e.toString(), e);
        queue.addWithBackoff(uid);
      } finally {
        queue.done(uid);
      }
    }
  }
}
