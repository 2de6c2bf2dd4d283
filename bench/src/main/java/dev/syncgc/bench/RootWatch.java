package dev.syncgc.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one object (by name, checking the uid) from before its DELETE until the DELETED event:
 * the end of every measurement. If the watch were ever lost, a slow GET poll still notices the
 * object gone (and says so).
 */
final class RootWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RootWatch.class);
  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String uid;
  private final CountDownLatch present = new CountDownLatch(1);
  private final CountDownLatch gone = new CountDownLatch(1);
  private volatile long goneNanos;
  private final Watch watch;

  RootWatch(KubernetesClient client, String namespace, String name, String uid) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
    this.watch = client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(namespace).withName(name)
        .watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, GenericKubernetesResource resource) {
            long now = System.nanoTime();
            if (!uid.equals(resource.getMetadata().getUid())) {
              return;
            }
            if (action == Action.DELETED) {
              if (gone.getCount() > 0) {
                goneNanos = now;
                gone.countDown();
              }
            } else {
              present.countDown();
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            if (gone.getCount() > 0) {
              log.warn("watch of {}/{} closed: {}", namespace, name, cause == null ? "" : cause.getMessage());
            }
          }
        });
  }

  /** The watch has delivered the object's current state: it is established, DELETE may go. */
  void awaitPresent() throws InterruptedException {
    if (!present.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("watch of " + namespace + "/" + name + " delivered nothing in 60 s");
    }
  }

  /** nanoTime at which the DELETED event arrived. */
  long awaitGone(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!gone.await(5, TimeUnit.SECONDS)) {
      GenericKubernetesResource now = client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(namespace)
          .withName(name).get();
      if ((now == null || !uid.equals(now.getMetadata().getUid())) && gone.getCount() > 0) {
        log.warn("{}/{} gone but its watch said nothing; time taken from a GET (±5 s)", namespace, name);
        return System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(namespace + "/" + name + " still there after " + timeout.toSeconds() + " s");
      }
    }
    return goneNanos;
  }

  @Override
  public void close() {
    watch.close();
  }
}
