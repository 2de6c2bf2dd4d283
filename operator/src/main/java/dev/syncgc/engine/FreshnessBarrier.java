package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the graph has seen every dependent of an owner that existed when the owner's deletion
 * was seen, before anything is deleted or released for it (the "unhandled case" of the Kubernetes
 * synchronous-GC proposal).
 *
 * <p>Dependents of the owner's own kind: its watch delivers that kind's events in the API server's
 * order, and resourceVersions of one resource compare (KEP-5504). Once the watch has delivered
 * everything up to the version the owner was first seen deleted at, every object of the kind created
 * before is in the graph: no LIST is needed ({@link Positions}). In a tree of one kind, the usual
 * shape, this spares a LIST of the whole namespace per wave of owners.
 *
 * <p>Other kinds: watches of different kinds are not ordered with each other, and resourceVersions of
 * different kinds are not comparable. So their watch positions are not trusted: the guarantee comes
 * from order in time alone. A LIST of a kind is a
 * consistent read served after it was sent; sent after the owner's deletion was seen, it shows every
 * object of that kind created before the deletion and still there. Every listed object the graph
 * does not know yet is fed to it, so one LIST answers for every owner whose deletion was seen before
 * it was sent (a wave of owners costs one LIST per kind and namespace). Because the check covers
 * whole namespaces, not only direct dependents, a grandchild that was not seen is found as well
 * before its parent is deleted without a finalizer.
 *
 * <p>A LIST that fails (no permission, a conversion webhook down) leaves the kind unverified: the
 * caller reports it as a blocker and nothing is deleted or released until it succeeds or the
 * deadline passes; a failure is remembered for a few seconds, not retried on every sync.
 */
final class FreshnessBarrier {
  private static final Logger log = LoggerFactory.getLogger(FreshnessBarrier.class);
  static final Duration FAILURE_MEMORY = Duration.ofSeconds(5);

  private record Failure(String reason, long untilNanos) {}

  /** A consistent metadata LIST of a kind in a namespace (null: all), each item handed over. */
  interface Lister {
    void list(TrackedKind kind, String namespace, Consumer<ObjectMetadata> each);
  }

  /** How far a kind's watch has delivered its events in a namespace: {@code Reflectors.deliveredUpTo}. */
  interface Positions {
    long deliveredUpTo(TrackedKind kind, String namespace);
  }

  private final Lister lister;
  private final Positions positions;
  private final Set<String> namespaces;
  private final BiPredicate<String, Long> known;
  private final BiConsumer<TrackedKind, ObjectMetadata> feed;
  private final IntConsumer found;
  private final LongSupplier nanoTime;
  private final ObjectStates states;
  private final Map<String, Long> listSentAt = new ConcurrentHashMap<>();
  private final Map<String, Failure> failures = new ConcurrentHashMap<>();
  private final Map<String, Object> locks = new ConcurrentHashMap<>();
  private final Executor lists;

  /**
   * @param lister the LISTs (KubeApi::listMetadata)
   * @param positions how far each kind's watch has delivered (Reflectors::deliveredUpTo)
   * @param namespaces the watched namespaces, empty for all: nothing outside them is listed or fed
   * @param known whether the graph knows an object (uid) at a resourceVersion or later, or saw it go
   * @param feed where objects found by a LIST go: into the graph, as if watched
   * @param found counts the objects fed (a metric)
   * @param lists runs the LISTs of one check in parallel
   */
  FreshnessBarrier(Lister lister, Positions positions, Set<String> namespaces, BiPredicate<String, Long> known,
      BiConsumer<TrackedKind, ObjectMetadata> feed, IntConsumer found, LongSupplier nanoTime,
      Executor lists, ObjectStates states) {
    this.states = states;
    this.lists = lists;
    this.lister = lister;
    this.positions = positions;
    this.namespaces = Set.copyOf(namespaces);
    this.known = known;
    this.feed = feed;
    this.found = found;
    this.nanoTime = nanoTime;
  }

  /** The graph saw this object being deleted (the first time counts). */
  void deletionSeen(ObjectMetadata object) {
    seenAt(states.arriving(object.uid()), object.resourceVersion());
  }

  /**
   * When the object was first seen deleted, recorded now (at {@code version}, 0 if unknown) unless it
   * was before.
   */
  private long seenAt(ObjectStates.State state, long version) {
    synchronized (state) {
      if (state.deletionSeenNanos < 0) {
        state.deletionSeenNanos = nanoTime.getAsLong();
        state.deletionSeenVersion = version;
      }
      return state.deletionSeenNanos;
    }
  }

  /**
   * Checks, once per owner, that the graph has seen every object of these kinds that existed when
   * the owner's deletion was seen, in the namespaces where its dependents may live.
   *
   * @param kinds the kinds to check, asked only while the owner is not verified yet (an owner is
   *     synced once per change below it; the kinds are worked out once per check, not per sync)
   * @return what could not be checked; empty once the owner is verified
   */
  List<Blocker> verify(ObjectMetadata owner, Supplier<List<TrackedKind>> kinds) {
    ObjectStates.State state = states.of(owner.uid());
    if (state.verified) {
      return List.of();
    }
    long seenAt = seenAt(state, 0); // recorded by deletionSeen; if not, no version is known
    List<CompletableFuture<String>> checks = new ArrayList<>();
    for (TrackedKind kind : kinds.get()) {
      if (owner.ref().namespaced() && !kind.namespaced()) {
        continue; // a cluster-scoped object cannot have a namespaced owner
      }
      if (watchedPast(owner, kind, state.deletionSeenVersion)) {
        continue;
      }
      for (String namespace : scopes(owner, kind)) {
        // kinds are listed in parallel: the check costs the slowest LIST, not their sum
        checks.add(CompletableFuture.supplyAsync(() -> listedAfter(kind, namespace, seenAt), lists));
      }
    }
    List<Blocker> unverified = new ArrayList<>();
    for (CompletableFuture<String> check : checks) {
      String reason;
      try {
        reason = check.join();
      } catch (CompletionException e) {
        reason = "checking for dependents not seen yet failed: " + e.getCause();
      }
      if (reason != null) {
        unverified.add(Blocker.unverified(reason));
      }
    }
    if (unverified.isEmpty()) {
      state.verified = true;
    }
    return unverified;
  }

  /**
   * Whether the watch of the owner's own kind has delivered every event up to the version the owner was
   * first seen deleted at (0: unknown, e.g. an opaque resourceVersion; then a LIST decides).
   */
  private boolean watchedPast(ObjectMetadata owner, TrackedKind kind, long deletionSeenVersion) {
    return deletionSeenVersion > 0 && kind.group().equals(owner.ref().group())
        && kind.kind().equals(owner.ref().kind())
        && positions.deliveredUpTo(kind, owner.ref().namespace()) >= deletionSeenVersion;
  }

  /** Where dependents of {@code owner} of this kind may live, among the watched namespaces; null: all. */
  private List<String> scopes(ObjectMetadata owner, TrackedKind kind) {
    if (!kind.namespaced()) {
      return Collections.singletonList(null);
    }
    if (owner.ref().namespaced()) {
      return List.of(owner.ref().namespace());
    }
    return namespaces.isEmpty() ? Collections.singletonList(null) : namespaces.stream().sorted().toList();
  }

  /** Makes sure a LIST of the kind was sent after {@code seenAt}; null when so, else why not. */
  private String listedAfter(TrackedKind kind, String namespace, long seenAt) {
    String key = kind.groupKind() + "@" + (namespace == null ? "" : namespace);
    if (sentAfter(key, seenAt)) {
      return null;
    }
    synchronized (locks.computeIfAbsent(key, k -> new Object())) {
      if (sentAfter(key, seenAt)) {
        return null; // another owner's LIST, sent while this one waited, answers for it too
      }
      Failure failure = failures.get(key);
      if (failure != null && failure.untilNanos - nanoTime.getAsLong() > 0) {
        return failure.reason;
      }
      long sentAt = nanoTime.getAsLong();
      AtomicInteger fed = new AtomicInteger();
      try {
        lister.list(kind, namespace, item -> {
          if (!known.test(item.uid(), item.resourceVersion())) {
            log.info("freshness check found an object the watch has not delivered yet kind={} namespace={}"
                + " name={} uid={}", kind, item.ref().namespace(), item.ref().name(), item.uid());
            feed.accept(kind, item);
            fed.incrementAndGet();
          }
        });
      } catch (KubernetesClientException e) {
        String reason = "cannot list " + kind.kind() + (namespace == null ? "" : " in " + namespace)
            + " to check for dependents not seen yet: "
            + (e.getCode() == 403 && String.valueOf(e.getMessage()).contains(" cannot ") ? "forbidden (grant list on it)"
                : e.getMessage()); // the API server's words: "HTTP 500: ...", "no answer: ..."

        failures.put(key, new Failure(reason, nanoTime.getAsLong() + FAILURE_MEMORY.toNanos()));
        log.warn("freshness check failed kind={} namespace={} reason=\"{}\"", kind, namespace, reason);
        return reason;
      }
      failures.remove(key);
      listSentAt.merge(key, sentAt, (a, b) -> b - a > 0 ? b : a);
      if (fed.get() > 0) {
        found.accept(fed.get());
      }
      return null;
    }
  }

  private boolean sentAfter(String key, long seenAt) {
    Long sent = listSentAt.get(key);
    return sent != null && sent - seenAt > 0;
  }
}
