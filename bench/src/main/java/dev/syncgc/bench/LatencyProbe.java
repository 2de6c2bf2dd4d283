package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The latency of syncgc under load: an owner ({@code Synchronous}) with {@code dependents} dependents
 * is created in {@code ns}, and the seconds from its DELETE until the first of its dependents is marked
 * for deletion or gone are measured.
 */
final class LatencyProbe {
  private static final String OWNER_LABEL = "bench.syncgc.dev/owner";

  private final Cluster cluster;
  private final String ns;
  private final int dependents;

  LatencyProbe(Cluster cluster, String ns, int dependents) {
    this.cluster = cluster;
    this.ns = ns;
    this.dependents = dependents;
  }

  /** Seconds from the owner's DELETE until the first of its dependents is marked for deletion or gone. */
  double measure(int sample) throws InterruptedException {
    String owner = "lat-" + sample;
    var items = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns);
    String uid = cluster.api.create(BenchCrd.item(ns, owner, List.of(),
        Map.of(Names.PROPAGATION, "Synchronous"), Map.of(), 0));
    for (int k = 0; k < dependents; k++) {
      cluster.api.create(BenchCrd.item(ns, owner + "-" + k, List.of(BenchCrd.owner(owner, uid)), Map.of(),
          Map.of(OWNER_LABEL, owner), k));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    cluster.awaitFinalizer(ns, owner);
    Thread.sleep(1000); // syncgc sees the dependents
    CountDownLatch added = new CountDownLatch(dependents);
    CountDownLatch first = new CountDownLatch(1);
    long[] firstNanos = new long[1];
    Watch watch = items.withLabel(OWNER_LABEL, owner).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource r) {
        long now = System.nanoTime();
        boolean marked = action == Action.DELETED || r.getMetadata().getDeletionTimestamp() != null;
        if (marked) {
          synchronized (firstNanos) {
            if (first.getCount() > 0) {
              firstNanos[0] = now;
              first.countDown();
            }
          }
        } else if (action == Action.ADDED) {
          added.countDown();
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    });
    try {
      if (!added.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("watch of the dependents of " + owner + " delivered nothing");
      }
      long start = System.nanoTime();
      cluster.api.delete(ns, owner, uid, "Background");
      if (!first.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("no dependent of " + owner + " deleted within 120 s");
      }
      double seconds = (firstNanos[0] - start) / 1e9;
      while (items.withName(owner).get() != null && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(120)) {
        Thread.sleep(100);
      }
      return seconds;
    } finally {
      watch.close();
    }
  }
}
