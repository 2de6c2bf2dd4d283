package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Fabric8 informer per tracked kind (and per watched namespace when they are restricted),
 * each with a {@link SlimItemStore}, feeding one {@link ObjectEvents} sink.
 */
public final class ObjectInformers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ObjectInformers.class);
  private static final Duration DELIVERY_DEADLINE = Duration.ofMinutes(5);
  /**
   * Test hook, off unless set: {@code Kind=millis} delays every event of that kind by that much
   * (in order), to make the race between watches of different kinds happen on purpose.
   */
  static final String DELAY_ENV = "SYNCGC_TEST_DELAY_EVENTS";
  private static final ScheduledExecutorService POLL = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "informer-sync");
    t.setDaemon(true);
    return t;
  });

  /**
   * Objects per page of an informer's LIST (client-go's page size). Unpaged, the initial list of
   * 100,000 objects arrived as one response of over 100 MB and the operator ran out of a 256 MiB heap
   * before its graph was built (the scale benchmark); pages bound that to a page's worth. With a limit
   * Fabric8 lists without resourceVersion=0, so the API server pages a consistent read instead of
   * answering from its watch cache in one piece.
   */
  static final long LIST_PAGE = 500;

  /** What an informer reports. Calls for one kind come in the order the API server sent them. */
  public interface ObjectEvents {
    void upserted(TrackedKind kind, GenericKubernetesResource object);

    void deleted(TrackedKind kind, GenericKubernetesResource object);
  }

  private final KubernetesClient client;
  private final Set<String> namespaces;
  private final Duration initialListTimeout;
  private final ObjectEvents sink;
  private final Map<String, TrackedKind> kinds = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> syncedFutures = new ConcurrentHashMap<>();
  private final Map<String, List<SharedIndexInformer<GenericKubernetesResource>>> informers =
      new ConcurrentHashMap<>();
  private final Set<String> refused = ConcurrentHashMap.newKeySet();
  private final EventDelay delay = EventDelay.fromEnvironment(System.getenv(DELAY_ENV));

  /** @param namespaces the namespaces to watch; empty for all */
  /**
   * @param initialListTimeout start-up waits this long for a kind whose list keeps failing, then goes
   *     on without it (the informer keeps retrying)
   */
  public ObjectInformers(KubernetesClient client, Set<String> namespaces, Duration initialListTimeout,
      ObjectEvents sink) {
    this.client = client;
    this.initialListTimeout = initialListTimeout;
    this.namespaces = namespaces;
    this.sink = sink;
  }

  /** Starts watching a kind, unless it is watched already; completes once its initial list is in. */
  public synchronized CompletableFuture<Void> track(TrackedKind kind) {
    TrackedKind existing = kinds.get(kind.groupKind());
    if (existing != null) {
      if (existing.equals(kind)) {
        return syncedFutures.get(kind.groupKind());
      }
      untrack(existing); // the CRD's storage version changed
    }
    kinds.put(kind.groupKind(), kind);
    List<SharedIndexInformer<GenericKubernetesResource>> started = new ArrayList<>();
    List<CompletableFuture<?>> synced = new ArrayList<>();
    var resources = client.genericKubernetesResources(kind.context());
    if (!kind.namespaced() || namespaces.isEmpty()) {
      started.add(resources.inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(0));
    } else {
      for (String ns : namespaces) {
        started.add(resources.inNamespace(ns).withLimit(LIST_PAGE).runnableInformer(0));
      }
    }
    for (SharedIndexInformer<GenericKubernetesResource> informer : started) {
      SlimItemStore store = new SlimItemStore(kind.apiVersion(), kind.kind());
      AtomicLong delivered = new AtomicLong();
      informer.itemStore(store);
      informer.addEventHandler(handler(kind, delivered));
      CompletableFuture<Void> refused = new CompletableFuture<>();
      informer.exceptionHandler((isStarted, t) -> {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof KubernetesClientException e && e.getCode() == 403) {
          this.refused.add(kind.groupKind());
          if (refused.complete(null)) {
            log.error("no permission to list and watch kind={}; its objects are not tracked until it is"
                + " granted error=\"{}\"", kind, e.getMessage());
          }
        } else {
          log.warn("watch failed kind={} error={}", kind, t.toString());
        }
        return true; // keep retrying: a missing permission should be fixable without a restart
      });
      CompletableFuture<Void> listed = informer.start().toCompletableFuture()
          .thenCompose(v -> delivered(delivered, store.size(), kind));
      synced.add(CompletableFuture.anyOf(listed, refused).thenApply(v -> (Void) null)
          .orTimeout(initialListTimeout.toMillis(), TimeUnit.MILLISECONDS)
          .exceptionally(t -> {
            // e.g. a conversion webhook down: the graph lacks this kind, so the freshness check of
            // every owner that may have such dependents fails and reports it until the list succeeds
            log.error("initial list of kind={} not done after {}s; starting without it, retrying in the"
                + " background", kind, initialListTimeout.toSeconds());
            return null;
          }));
    }
    informers.put(kind.groupKind(), started);
    log.info("tracking kind={} namespaced={}", kind, kind.namespaced());
    CompletableFuture<Void> all = CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
    syncedFutures.put(kind.groupKind(), all);
    return all;
  }

  public synchronized void untrack(TrackedKind kind) {
    kinds.remove(kind.groupKind());
    refused.remove(kind.groupKind());
    syncedFutures.remove(kind.groupKind());
    List<SharedIndexInformer<GenericKubernetesResource>> stopped = informers.remove(kind.groupKind());
    if (stopped != null) {
      stopped.forEach(SharedIndexInformer::stop);
      log.info("stopped tracking kind={}", kind);
    }
  }

  public boolean tracks(String groupKind) {
    return kinds.containsKey(groupKind);
  }

  public TrackedKind kind(String groupKind) {
    return kinds.get(groupKind);
  }

  /** The tracked kind of an object; it must be tracked (the graph holds only such objects). */
  public TrackedKind kindOf(dev.syncgc.core.model.ObjectRef ref) {
    TrackedKind kind = kinds.get(ref.group() + "/" + ref.kind());
    if (kind == null) {
      throw new IllegalStateException("kind of " + ref + " is no longer tracked");
    }
    return kind;
  }

  /**
   * Tracked kinds syncgc may list: not those its RBAC refuses (their objects are never in the graph,
   * so nothing of them is deleted or waited for; they are named when a deletion completes).
   */
  public List<TrackedKind> listableKinds() {
    return kinds.values().stream().filter(k -> !refused.contains(k.groupKind())).toList();
  }

  /** Tracked kinds whose list and watch the API server refuses (403), as group/kind. */
  public List<String> refusedKinds() {
    return refused.stream().sorted().toList();
  }

  /** For liveness: how many informers there are, and how many are watching now. */
  public dev.syncgc.http.Liveness.Watches watches() {
    List<SharedIndexInformer<GenericKubernetesResource>> all =
        informers.values().stream().flatMap(List::stream).toList();
    return new dev.syncgc.http.Liveness.Watches(all.size(),
        (int) all.stream().filter(SharedIndexInformer::isWatching).count());
  }

  /**
   * Completes once the handler has been given at least {@code listed} objects: an informer reports
   * itself synced when its list is stored, before its handlers have seen all of it.
   */
  private CompletableFuture<Void> delivered(AtomicLong delivered, int listed, TrackedKind kind) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    long deadline = System.nanoTime() + DELIVERY_DEADLINE.toNanos();
    Runnable check = new Runnable() {
      @Override
      public void run() {
        if (delivered.get() >= listed) {
          done.complete(null);
        } else if (System.nanoTime() - deadline > 0) {
          log.warn("initial list not fully delivered kind={} listed={} delivered={}", kind, listed,
              delivered.get());
          done.complete(null);
        } else {
          POLL.schedule(this, 20, TimeUnit.MILLISECONDS);
        }
      }
    };
    check.run();
    return done;
  }

  private ResourceEventHandler<GenericKubernetesResource> handler(TrackedKind kind, AtomicLong delivered) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        deliver(kind, delivered, () -> sink.upserted(kind, obj));
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        deliver(kind, delivered, () -> {
          if (!Objects.equals(oldObj.getMetadata().getUid(), newObj.getMetadata().getUid())) {
            // the store is keyed by name: a relist found the object recreated under it
            sink.deleted(kind, oldObj);
          }
          sink.upserted(kind, newObj);
        });
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean finalStateUnknown) {
        deliver(kind, delivered, () -> sink.deleted(kind, obj));
      }
    };
  }

  private void deliver(TrackedKind kind, AtomicLong delivered, Runnable event) {
    refused.remove(kind.groupKind());
    delay.run(kind.kind(), () -> {
      event.run();
      delivered.incrementAndGet();
    });
  }

  @Override
  public synchronized void close() {
    informers.values().forEach(list -> list.forEach(SharedIndexInformer::stop));
    informers.clear();
  }
}
