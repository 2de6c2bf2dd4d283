package dev.syncgc.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch of the namespace's bench items from before the first DELETE: the order of their DELETED events, and
 * when the last arrived. If the watch were lost, a poll of what is left still ends the run (and says so).
 */
final class DeletionWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeletionWatch.class);

  private final Cluster cluster;
  private final String ns;
  private final int objects;
  private final CountDownLatch listed;
  private final CountDownLatch gone;
  private final AtomicInteger sequence = new AtomicInteger();
  private final AtomicLong lastNanos = new AtomicLong();
  private volatile long startNanos;
  private final Watch watch;

  /** @param ownerSeconds gets, for each owner, the seconds from {@link #start} until its DELETED event */
  DeletionWatch(Cluster cluster, String ns, int objects, Map<String, Integer> order, List<Double> ownerSeconds) {
    this.cluster = cluster;
    this.ns = ns;
    this.objects = objects;
    this.listed = new CountDownLatch(objects);
    this.gone = new CountDownLatch(objects);
    // no resourceVersion: the watch starts with an ADDED event per existing object
    this.watch = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns)
        .watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, GenericKubernetesResource r) {
            long now = System.nanoTime();
            if (action == Action.ADDED) {
              listed.countDown();
            } else if (action == Action.DELETED
                && order.putIfAbsent(r.getMetadata().getName(), sequence.getAndIncrement()) == null) {
              lastNanos.set(now);
              if (!r.getMetadata().getName().contains("-d-")) {
                ownerSeconds.add((now - startNanos) / 1e9);
              }
              gone.countDown();
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            if (gone.getCount() > 0) {
              log.warn("watch of {} closed: {}", ns, cause == null ? "" : cause.getMessage());
            }
          }
        });
  }

  void start(long nanos) {
    startNanos = nanos;
  }

  void awaitListed() throws InterruptedException {
    if (!listed.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("watch of " + ns + " delivered " + (objects - listed.getCount()) + " of "
          + objects + " objects in 120 s");
    }
  }

  /** Seconds from start until the last object's DELETED event. */
  double awaitAllGone(long start, Duration timeout) throws InterruptedException {
    long deadline = start + timeout.toNanos();
    while (!gone.await(5, TimeUnit.SECONDS)) {
      if (cluster.remainingItems(ns) == 0 && gone.getCount() > 0) {
        log.warn("{} is empty but its watch saw {} of {} deletions; time taken from a poll (±5 s)", ns,
            objects - gone.getCount(), objects);
        return (System.nanoTime() - start) / 1e9;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(ns + " still holds " + cluster.remainingItems(ns) + " bench items after "
            + timeout.toSeconds() + " s");
      }
    }
    return (lastNanos.get() - start) / 1e9;
  }

  @Override
  public void close() {
    watch.close();
  }
}
