package dev.syncgc.kube.reflector;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.http.Liveness;
import dev.syncgc.kube.EventDelay;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link Reflector} per tracked kind (and per watched namespace when they are restricted), all
 * feeding one {@link ObjectEvents} sink: the graph is the only store of what they read. Events of a
 * kind's reflectors replaced (its CRD's storage version changed) or stopped (its CRD deleted) are
 * dropped: the kind's new list, or its removal, supersedes them.
 */
public final class Reflectors implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Reflectors.class);
  /**
   * Test hook, off unless set: {@code Kind=millis} delays every event of that kind by that much
   * (in order), to make the race between watches of different kinds happen on purpose.
   */
  public static final String DELAY_ENV = "SYNCGC_TEST_DELAY_EVENTS";
  /** LISTs at once: they wait on the client-side rate limit anyway. */
  private static final int LIST_THREADS = 4;

  /** What the reflectors report. Calls for one kind and namespace come in the order the API server sent them. */
  public interface ObjectEvents {
    void upserted(TrackedKind kind, ObjectMetadata object);

    void deleted(TrackedKind kind, ObjectMetadata object);

    /**
     * A LIST of {@code kind} in {@code namespace} (null: all) read at resourceVersion {@code at} held
     * exactly the objects {@code held} (uids), all delivered before this call: what the graph holds of
     * that kind and namespace, not held and not newer than {@code at}, is gone.
     */
    void relisted(TrackedKind kind, String namespace, long at, Set<String> held);
  }

  private final KubeApi api;
  private final Set<String> namespaces;
  private final Duration initialListTimeout;
  private final ObjectEvents sink;
  private final Map<String, TrackedKind> kinds = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> syncedFutures = new ConcurrentHashMap<>();
  private final Map<String, List<Reflector>> reflectors = new ConcurrentHashMap<>();
  private final Set<String> refused = ConcurrentHashMap.newKeySet();
  /** Per kind, per watched namespace ("" for one watch of all): up to which version its events are in the graph. */
  private final Map<String, Map<String, AtomicLong>> delivered = new ConcurrentHashMap<>();
  private final EventDelay delay = EventDelay.fromEnvironment(DELAY_ENV, System.getenv(DELAY_ENV));
  private final ExecutorService lists = Executors.newFixedThreadPool(LIST_THREADS, daemon("reflector-list"));
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemon("reflector-retry"));

  /**
   * @param namespaces the namespaces to watch; empty for all
   * @param initialListTimeout start-up waits this long for a kind whose list keeps failing, then goes
   *     on without it (its reflector keeps retrying)
   */
  public Reflectors(KubeApi api, Set<String> namespaces, Duration initialListTimeout, ObjectEvents sink) {
    this.api = api;
    this.namespaces = namespaces;
    this.initialListTimeout = initialListTimeout;
    this.sink = sink;
  }

  /** Starts watching a kind, unless it is watched already; completes once its initial list is in the graph. */
  public synchronized CompletableFuture<Void> track(TrackedKind kind) {
    TrackedKind existing = kinds.get(kind.groupKind());
    if (existing != null) {
      if (existing.equals(kind)) {
        return syncedFutures.get(kind.groupKind());
      }
      untrack(existing); // the CRD's storage version changed
    }
    kinds.put(kind.groupKind(), kind);
    List<String> scopes = new ArrayList<>();
    if (!kind.namespaced() || namespaces.isEmpty()) {
      scopes.add(null);
    } else {
      scopes.addAll(namespaces.stream().sorted().toList());
    }
    List<Reflector> created = new ArrayList<>();
    List<CompletableFuture<Void>> synced = new ArrayList<>();
    Map<String, AtomicLong> positions = new ConcurrentHashMap<>(); // a new kind's version starts from nothing
    for (String namespace : scopes) {
      CompletableFuture<Void> listed = new CompletableFuture<>();
      AtomicLong position = positions.computeIfAbsent(namespace == null ? "" : namespace, n -> new AtomicLong());
      created.add(new Reflector(kind, namespace, api, listener(kind, namespace, created, listed, position), lists,
          timer));
      synced.add(listed.orTimeout(initialListTimeout.toMillis(), TimeUnit.MILLISECONDS).exceptionally(t -> {
        // e.g. a conversion webhook down: the graph lacks this kind, so the freshness check of every
        // owner that may have such dependents fails and reports it until the list succeeds
        log.error("initial list of kind={} not done after {}s; starting without it, retrying in the background",
            kind, initialListTimeout.toSeconds());
        return null;
      }));
    }
    delivered.put(kind.groupKind(), positions);
    reflectors.put(kind.groupKind(), created); // before any event: events of other reflectors are dropped
    created.forEach(Reflector::start);
    log.info("tracking kind={} namespaced={}", kind, kind.namespaced());
    CompletableFuture<Void> all = CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
    syncedFutures.put(kind.groupKind(), all);
    return all;
  }

  public synchronized void untrack(TrackedKind kind) {
    kinds.remove(kind.groupKind());
    refused.remove(kind.groupKind());
    syncedFutures.remove(kind.groupKind());
    delivered.remove(kind.groupKind());
    List<Reflector> stopped = reflectors.remove(kind.groupKind());
    if (stopped != null) {
      stopped.forEach(Reflector::stop);
      log.info("stopped tracking kind={}", kind);
    }
  }

  /**
   * @param of the kind's reflectors this one belongs to: events are dropped once they are replaced
   * @param listed completed once the first list is delivered, or the kind refused
   * @param position where {@link #deliveredUpTo} reads this reflector's progress
   */
  private Reflector.Listener listener(TrackedKind kind, String namespace, List<Reflector> of,
      CompletableFuture<Void> listed, AtomicLong position) {
    return new Reflector.Listener() {
      @Override
      public void upserted(ObjectMetadata object) {
        deliver(kind, of, () -> sink.upserted(kind, object));
      }

      @Override
      public void deleted(ObjectMetadata object) {
        deliver(kind, of, () -> sink.deleted(kind, object));
      }

      @Override
      public void listed(long at, Set<String> held) {
        if (reflectors.get(kind.groupKind()) == of) {
          refused.remove(kind.groupKind()); // a permission granted later works without a restart
        }
        deliver(kind, of, () -> {
          sink.relisted(kind, namespace, at, held);
          position.accumulateAndGet(at, Math::max);
        });
        delay.run(kind.kind(), () -> listed.complete(null)); // after the list's objects, also when delayed
      }

      @Override
      public void progressed(long resourceVersion) {
        // through the same (possibly delayed) path as the events: never ahead of what the graph holds
        deliver(kind, of, () -> position.accumulateAndGet(resourceVersion, Math::max));
      }

      @Override
      public void refused(KubernetesClientException e) {
        if (reflectors.get(kind.groupKind()) == of && refused.add(kind.groupKind())) {
          log.error("no permission to list and watch kind={}; its objects are not tracked until it is granted"
              + " error=\"{}\"", kind, e.getMessage());
        }
        listed.complete(null); // start-up does not wait for a kind it may not read
      }
    };
  }

  private void deliver(TrackedKind kind, List<Reflector> of, Runnable event) {
    delay.run(kind.kind(), () -> {
      if (reflectors.get(kind.groupKind()) == of) {
        event.run();
      } // else replaced or stopped: the kind's new list (or its CRD's deletion) decides
    });
  }

  /**
   * The resourceVersion up to which every event of {@code kind} in the watched scope holding
   * {@code namespace} (ignored for a cluster-scoped kind) is in the graph, delivered in the API server's
   * order; 0 when nothing is known (not listed yet, opaque versions, a namespace not watched).
   * Kubernetes orders resourceVersions within one resource only (KEP-5504): compare it only with
   * versions of objects of the same kind.
   */
  public long deliveredUpTo(TrackedKind kind, String namespace) {
    Map<String, AtomicLong> positions = delivered.get(kind.groupKind());
    boolean oneWatch = !kind.namespaced() || namespaces.isEmpty() || namespace == null;
    AtomicLong position = positions == null ? null : positions.get(oneWatch ? "" : namespace);
    return position == null ? 0 : position.get();
  }

  public boolean tracks(String groupKind) {
    return kinds.containsKey(groupKind);
  }

  public TrackedKind kind(String groupKind) {
    return kinds.get(groupKind);
  }

  /** The tracked kind of an object; it must be tracked (the graph holds only such objects). */
  public TrackedKind kindOf(ObjectRef ref) {
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

  /** For liveness: how many reflectors there are, and how many are watching now. */
  public Liveness.Watches watches() {
    List<Reflector> all = reflectors.values().stream().flatMap(List::stream).toList();
    return new Liveness.Watches(all.size(), (int) all.stream().filter(Reflector::watching).count());
  }

  @Override
  public synchronized void close() {
    reflectors.values().forEach(list -> list.forEach(Reflector::stop));
    reflectors.clear();
    timer.shutdownNow();
    lists.shutdownNow();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
