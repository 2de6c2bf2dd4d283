package dev.syncgc.kube.reflector;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.EventDelay;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
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
  /**
   * The API server sends a watch a bookmark about once a minute (allowWatchBookmarks), so a watch
   * silent for twice that has lost its connection without a close (a load balancer, a NAT).
   */
  public static final Duration SILENCE_LIMIT = Duration.ofMinutes(2);
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
    void listed(TrackedKind kind, String namespace, long at, Set<String> held);

    /**
     * A watch of {@code kind} ended other than at the API server's timeout and is opened again (or its
     * kind listed again); {@code reason}: {@code failed}, {@code refused}, {@code expired} or {@code silent}.
     */
    default void watchRestarted(TrackedKind kind, String reason) {}
  }

  /** Why a watch is restarted ({@link ObjectEvents#watchRestarted}). */
  public static final List<String> RESTART_REASONS = List.of("failed", "refused", "expired", "silent");

  private final KubeApi api;
  private final Set<String> namespaces;
  private final Duration initialListTimeout;
  private final ObjectEvents sink;
  private final Duration silenceLimit;
  private final AtomicLong silentRestarts = new AtomicLong();
  /** Per tracked kind (group/kind): replaced whole when its CRD's storage version changes, dropped on untrack. */
  private final Map<String, KindTracking> tracked = new ConcurrentHashMap<>();
  private final EventDelay delay = EventDelay.fromEnvironment(DELAY_ENV, System.getenv(DELAY_ENV));
  private final ExecutorService lists = Executors.newFixedThreadPool(LIST_THREADS, daemon("reflector-list"));
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemon("reflector-retry"));

  /**
   * @param namespaces the namespaces to watch; empty for all
   * @param initialListTimeout start-up waits this long for a kind whose list keeps failing, then goes
   *     on without it (its reflector keeps retrying)
   */
  public Reflectors(KubeApi api, Set<String> namespaces, Duration initialListTimeout, ObjectEvents sink) {
    this(api, namespaces, initialListTimeout, sink, SILENCE_LIMIT);
  }

  /**
   * @param silenceLimit how long a watch may stay silent (no event, no bookmark) before it is taken for
   *     a connection dropped without a close and started again from the last version seen
   */
  public Reflectors(KubeApi api, Set<String> namespaces, Duration initialListTimeout, ObjectEvents sink,
      Duration silenceLimit) {
    this.api = api;
    this.namespaces = namespaces;
    this.initialListTimeout = initialListTimeout;
    this.sink = sink;
    this.silenceLimit = silenceLimit;
  }

  /** Watches restarted because they had been silent past the limit (a connection dropped without a close). */
  public long silentWatchesRestarted() {
    return silentRestarts.get();
  }

  /** Starts watching a kind, unless it is tracked already; completes once its initial list is in the graph. */
  public synchronized CompletableFuture<Void> track(TrackedKind kind) {
    KindTracking existing = tracked.get(kind.groupKind());
    if (existing != null) {
      if (existing.kind.equals(kind)) {
        return existing.synced;
      }
      untrack(existing.kind); // the CRD's storage version changed
    }
    KindTracking w = new KindTracking(kind); // a new kind's versions start from nothing
    List<String> scopes = new ArrayList<>();
    if (!kind.namespaced() || namespaces.isEmpty()) {
      scopes.add(null);
    } else {
      scopes.addAll(namespaces.stream().sorted().toList());
    }
    List<CompletableFuture<Void>> synced = new ArrayList<>();
    for (String namespace : scopes) {
      CompletableFuture<Void> listed = new CompletableFuture<>();
      AtomicLong position = w.delivered.computeIfAbsent(namespace == null ? "" : namespace, n -> new AtomicLong());
      ReflectorListener listener = w.listener(namespace, listed, position, sink, delay,
          current -> tracked.get(kind.groupKind()) == current);
      w.reflectors.add(new Reflector(kind, namespace, api, listener, lists, timer, silenceLimit, reason -> {
        if (reason.equals("silent")) {
          silentRestarts.incrementAndGet();
        }
        sink.watchRestarted(kind, reason);
      }));
      synced.add(listed.orTimeout(initialListTimeout.toMillis(), TimeUnit.MILLISECONDS).exceptionally(t -> {
        // e.g. a conversion webhook down: the graph lacks this kind, so the freshness check of every
        // owner that may have such dependents fails and reports it until the list succeeds
        log.error("initial list of kind={} not done after {}s; starting without it, retrying in the background",
            kind, initialListTimeout.toSeconds());
        return null;
      }));
    }
    w.synced = CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
    tracked.put(kind.groupKind(), w); // before any event: events of other reflectors are dropped
    w.reflectors.forEach(Reflector::start);
    log.info("tracking kind={} namespaced={}", kind, kind.namespaced());
    return w.synced;
  }

  public synchronized void untrack(TrackedKind kind) {
    KindTracking stopped = tracked.remove(kind.groupKind());
    if (stopped != null) {
      stopped.reflectors.forEach(Reflector::stop);
      log.info("stopped tracking kind={}", kind);
    }
  }

  /**
   * The resourceVersion up to which every event of {@code kind} in the watched scope holding
   * {@code namespace} (ignored for a cluster-scoped kind) is in the graph, delivered in the API server's
   * order; 0 when nothing is known (not listed yet, opaque versions, a namespace not watched).
   * Kubernetes orders resourceVersions within one resource only (KEP-5504): compare it only with
   * versions of objects of the same kind.
   */
  public long deliveredUpTo(TrackedKind kind, String namespace) {
    KindTracking w = tracked.get(kind.groupKind());
    boolean oneWatch = !kind.namespaced() || namespaces.isEmpty() || namespace == null;
    AtomicLong position = w == null ? null : w.delivered.get(oneWatch ? "" : namespace);
    return position == null ? 0 : position.get();
  }

  public boolean tracks(String groupKind) {
    return tracked.containsKey(groupKind);
  }

  /**
   * Whether a group/kind is tracked and its list and watch are not refused: only then is an object of
   * it that the graph has not seen absent. An owner of a kind that is not listable is out of sight, and
   * counts as keeping (SPEC, safety invariant 1).
   */
  public boolean listable(String groupKind) {
    KindTracking w = tracked.get(groupKind);
    return w != null && !w.refused.get();
  }

  public TrackedKind kind(String groupKind) {
    KindTracking w = tracked.get(groupKind);
    return w == null ? null : w.kind;
  }

  /** The tracked kind of an object; it must be tracked (the graph holds only such objects). */
  public TrackedKind kindOf(ObjectRef ref) {
    TrackedKind kind = kind(ref.group() + "/" + ref.kind());
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
    return tracked.values().stream().filter(w -> !w.refused.get()).map(w -> w.kind).toList();
  }

  /** Tracked kinds whose list and watch the API server refuses (403), as group/kind. */
  public List<String> refusedKinds() {
    return tracked.values().stream().filter(w -> w.refused.get()).map(w -> w.kind.groupKind()).sorted().toList();
  }

  /** For liveness: how many reflectors there are, and how many are watching now. */
  public Watches watches() {
    List<Reflector> all = tracked.values().stream().flatMap(w -> w.reflectors.stream()).toList();
    return new Watches(all.size(), (int) all.stream().filter(Reflector::watching).count());
  }

  @Override
  public synchronized void close() {
    tracked.values().forEach(w -> w.reflectors.forEach(Reflector::stop));
    tracked.clear();
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
