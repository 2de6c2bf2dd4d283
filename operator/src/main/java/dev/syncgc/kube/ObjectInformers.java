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
 *
 * <p>A list replaces what the graph holds of a kind. Fabric8 reports, as deletions, the objects its
 * store held that a relist no longer has; but the graph may hold objects the informer's store never
 * had: those of a kind whose informer was replaced (its CRD's storage version changed: the new
 * informer starts from an empty store, and an object deleted between the old one's stop and the new
 * one's list is reported by neither), or listed by the freshness check and deleted while the watch
 * was down. {@link #listedWithout} tells such an object, and {@link ObjectEvents#relisted} says when
 * to look: after each informer's (re)list, and every {@link #SWEEP_EVERY} in case one went unseen.
 * Events of an informer replaced or stopped are dropped: its kind's new list supersedes them.
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

  /** How often the informers' watches are looked at: one that starts watching (again) has just listed. */
  private static final Duration WATCH_CHECK = Duration.ofSeconds(1);
  /** Every informer's list is compared with the graph this often, even without a relist seen. */
  static final Duration SWEEP_EVERY = Duration.ofMinutes(5);

  /** What an informer reports. Calls for one kind come in the order the API server sent them. */
  public interface ObjectEvents {
    void upserted(TrackedKind kind, GenericKubernetesResource object);

    void deleted(TrackedKind kind, GenericKubernetesResource object);

    /**
     * An informer of {@code kind} has (re)listed, or it is time for the periodic check: objects of
     * tracked kinds that {@link #listedWithout} tells gone are to leave the graph.
     */
    default void relisted(TrackedKind kind) {}
  }

  /** One informer: the kind, the namespace it watches (null: all), its store, whether it was watching. */
  private record Watched(TrackedKind kind, String namespace, SharedIndexInformer<GenericKubernetesResource> informer,
      SlimItemStore store, java.util.concurrent.atomic.AtomicBoolean watching) {}

  private final KubernetesClient client;
  private final Set<String> namespaces;
  private final Duration initialListTimeout;
  private final ObjectEvents sink;
  private final Map<String, TrackedKind> kinds = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> syncedFutures = new ConcurrentHashMap<>();
  private final Map<String, List<Watched>> informers = new ConcurrentHashMap<>();
  private final Set<String> refused = ConcurrentHashMap.newKeySet();
  private final EventDelay delay = EventDelay.fromEnvironment(System.getenv(DELAY_ENV));
  private final java.util.concurrent.ScheduledFuture<?> watchCheck;
  private long lastSweep = System.nanoTime();

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
    this.watchCheck = POLL.scheduleWithFixedDelay(this::checkWatches, WATCH_CHECK.toMillis(), WATCH_CHECK.toMillis(),
        TimeUnit.MILLISECONDS);
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
    List<Watched> created = new ArrayList<>();
    List<CompletableFuture<?>> synced = new ArrayList<>();
    var resources = client.genericKubernetesResources(kind.context());
    if (!kind.namespaced() || namespaces.isEmpty()) {
      created.add(watched(kind, null, resources.inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(0)));
    } else {
      for (String ns : namespaces) {
        created.add(watched(kind, ns, resources.inNamespace(ns).withLimit(LIST_PAGE).runnableInformer(0)));
      }
    }
    List<Watched> started = List.copyOf(created);
    informers.put(kind.groupKind(), started); // before any event: events of other informers are dropped
    for (Watched w : started) {
      SharedIndexInformer<GenericKubernetesResource> informer = w.informer();
      SlimItemStore store = w.store();
      AtomicLong delivered = new AtomicLong();
      informer.itemStore(store);
      informer.addEventHandler(handler(kind, started, delivered));
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
          .thenCompose(v -> delivered(delivered, store.size(), kind))
          .whenComplete((v, t) -> relisted(kind, started)); // the list is in: compare the graph with it
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
    log.info("tracking kind={} namespaced={}", kind, kind.namespaced());
    CompletableFuture<Void> all = CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
    syncedFutures.put(kind.groupKind(), all);
    return all;
  }

  public synchronized void untrack(TrackedKind kind) {
    kinds.remove(kind.groupKind());
    refused.remove(kind.groupKind());
    syncedFutures.remove(kind.groupKind());
    List<Watched> stopped = informers.remove(kind.groupKind());
    if (stopped != null) {
      stopped.forEach(w -> w.informer().stop());
      log.info("stopped tracking kind={}", kind);
    }
  }

  private static Watched watched(TrackedKind kind, String namespace,
      SharedIndexInformer<GenericKubernetesResource> informer) {
    return new Watched(kind, namespace, informer, new SlimItemStore(kind.apiVersion(), kind.kind()),
        new java.util.concurrent.atomic.AtomicBoolean());
  }

  /**
   * Whether the informer of the object's kind and namespace has, by now, listed or watched past the
   * object's version without holding it: the object is gone (deleted, or another object now has its
   * name), and the graph's entry of it is a ghost. Never from absence alone: an object of a kind or
   * namespace no informer watches, an informer that has not listed yet, a version newer than what the
   * informer reached (the freshness check saw it first) or an opaque resourceVersion all say no.
   *
   * <p>Sound at any moment: the store is updated before the informer's resourceVersion moves past an
   * event (list: all pages, then the version; watch: each event, then its version), so every object
   * that existed at the version read first is in the store read after, unless a later event or list
   * took it out, which also means it is gone.
   */
  public boolean listedWithout(dev.syncgc.core.model.ObjectMetadata object) {
    dev.syncgc.core.model.ObjectRef ref = object.ref();
    List<Watched> watched = informers.get(ref.group() + "/" + ref.kind());
    if (watched == null) {
      return false;
    }
    for (Watched w : watched) {
      if (w.namespace() != null && !w.namespace().equals(ref.namespace())) {
        continue;
      }
      long reached = MetadataReader.parseVersion(w.informer().lastSyncResourceVersion()); // before the store
      if (reached <= 0 || object.resourceVersion() <= 0 || object.resourceVersion() > reached) {
        return false;
      }
      return !w.store().holds(ref.namespace(), ref.name(), ref.uid());
    }
    return false;
  }

  /** Tells the sink once an informer of the kind has listed, unless the kind was replaced or stopped since. */
  private void relisted(TrackedKind kind, List<Watched> of) {
    if (current(kind, of)) {
      sink.relisted(kind);
    }
  }

  private boolean current(TrackedKind kind, List<Watched> of) {
    return informers.get(kind.groupKind()) == of;
  }

  /**
   * An informer that watches again has relisted (after a 410 Gone, a failure, a permission granted)
   * or at least reconnected: the graph is compared with its store. Every {@link #SWEEP_EVERY}, all are.
   */
  private void checkWatches() {
    try {
      TrackedKind relisted = null;
      for (List<Watched> list : informers.values()) {
        for (Watched w : list) {
          boolean now = w.informer().isWatching();
          if (w.watching().getAndSet(now) != now && now) {
            relisted = w.kind();
          }
        }
      }
      if (relisted == null && System.nanoTime() - lastSweep > SWEEP_EVERY.toNanos() && !informers.isEmpty()) {
        relisted = informers.values().iterator().next().get(0).kind();
      }
      if (relisted != null) {
        lastSweep = System.nanoTime();
        sink.relisted(relisted);
      }
    } catch (RuntimeException e) {
      log.warn("checking the informers' watches failed error={}", e.toString());
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
        informers.values().stream().flatMap(List::stream).map(Watched::informer).toList();
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

  private ResourceEventHandler<GenericKubernetesResource> handler(TrackedKind kind, List<Watched> of,
      AtomicLong delivered) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        deliver(kind, of, delivered, () -> sink.upserted(kind, obj));
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        deliver(kind, of, delivered, () -> {
          if (!Objects.equals(oldObj.getMetadata().getUid(), newObj.getMetadata().getUid())) {
            // the store is keyed by name: a relist found the object recreated under it
            sink.deleted(kind, oldObj);
          }
          sink.upserted(kind, newObj);
        });
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean finalStateUnknown) {
        deliver(kind, of, delivered, () -> sink.deleted(kind, obj));
      }
    };
  }

  private void deliver(TrackedKind kind, List<Watched> of, AtomicLong delivered, Runnable event) {
    if (current(kind, of)) {
      refused.remove(kind.groupKind());
    }
    delay.run(kind.kind(), () -> {
      if (current(kind, of)) {
        event.run();
      } // else an informer replaced or stopped: the kind's new list (or its CRD's deletion) decides
      delivered.incrementAndGet();
    });
  }

  @Override
  public synchronized void close() {
    watchCheck.cancel(false);
    informers.values().forEach(list -> list.forEach(w -> w.informer().stop()));
    informers.clear();
  }
}
