package dev.syncgc.kube.reflector;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.EventDelay;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tracked kind of {@link Reflectors}: its reflectors (one per watched namespace, or one for all),
 * how far each has delivered, its initial list, and whether the API server refuses it. Events of a
 * KindTracking that is no longer the current one of its kind (replaced when its CRD's storage version
 * changed, or stopped) are dropped.
 */
final class KindTracking {
  private static final Logger log = LoggerFactory.getLogger(KindTracking.class);

  final TrackedKind kind;
  final List<Reflector> reflectors = new ArrayList<>();
  /** Per watched namespace ("" for one watch of all): up to which version its events are in the graph. */
  final Map<String, AtomicLong> delivered = new ConcurrentHashMap<>();
  final AtomicBoolean refused = new AtomicBoolean();
  CompletableFuture<Void> synced;

  KindTracking(TrackedKind kind) {
    this.kind = kind;
  }

  /**
   * What one of its reflectors reports, handed to {@code sink} in order (through the test hook
   * {@code delay}) while this is the current KindTracking of its kind ({@code current}).
   *
   * @param listed completed once the first list is delivered, or the kind refused
   * @param position where {@link Reflectors#deliveredUpTo} reads this reflector's progress
   */
  ReflectorListener listener(String namespace, CompletableFuture<Void> listed, AtomicLong position,
      Reflectors.ObjectEvents sink, EventDelay delay, Predicate<KindTracking> current) {
    return new ReflectorListener() {
      @Override
      public void upserted(ObjectMetadata object) {
        deliver(() -> sink.upserted(kind, object));
      }

      @Override
      public void deleted(ObjectMetadata object) {
        deliver(() -> sink.deleted(kind, object));
      }

      @Override
      public void listed(long at, Set<String> held) {
        refused.set(false); // a permission granted later works without a restart
        deliver(() -> {
          sink.listed(kind, namespace, at, held);
          position.accumulateAndGet(at, Math::max);
        });
        delay.run(kind.kind(), () -> listed.complete(null)); // after the list's objects, also when delayed
      }

      @Override
      public void progressed(long resourceVersion) {
        // through the same (possibly delayed) path as the events: never ahead of what the graph holds
        deliver(() -> position.accumulateAndGet(resourceVersion, Math::max));
      }

      @Override
      public void refused(KubernetesClientException e) {
        if (current.test(KindTracking.this) && refused.compareAndSet(false, true)) {
          log.error("no permission to list and watch kind={}; its objects are not tracked until it is granted"
              + " error=\"{}\"", kind, e.getMessage());
        }
        listed.complete(null); // start-up does not wait for a kind it may not read
      }

      private void deliver(Runnable event) {
        delay.run(kind.kind(), () -> {
          if (current.test(KindTracking.this)) {
            event.run();
          } // else replaced or stopped: the kind's new list (or its CRD's deletion) decides
        });
      }
    };
  }
}
