package dev.syncgc.kube;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default set of tracked kinds ({@code --builtin-kinds=*}): every kind the API server serves with
 * list, watch and delete, as the built-in garbage collector watches (its GetDeletableResources),
 * Events left out. Kinds defined by CRDs are left to {@link CrdKinds} (it tracks their storage
 * version). A kind served later (an aggregated API registered) is tracked within one interval. A
 * kind this class tracked is dropped only when a discovery read that succeeded no longer lists it
 * (its API was removed, or a CRD deleted just after discovery listed it): a group-version that
 * cannot be read keeps its kinds, so a kind that may hold dependents and cannot be listed keeps the
 * owners waiting and is named, never presumed empty.
 */
public final class ServedKinds implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServedKinds.class);

  private final Discovery discovery;
  private final Predicate<String> definedByCrd;
  private final Predicate<String> tracked;
  private final Function<TrackedKind, CompletableFuture<Void>> track;
  private final java.util.function.Consumer<TrackedKind> untrack;
  private final java.util.Map<String, TrackedKind> mine = new java.util.concurrent.ConcurrentHashMap<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "served-kinds");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param definedByCrd whether a group/kind is defined by a CustomResourceDefinition
   * @param tracked whether a group/kind is tracked already
   * @param track starts tracking a kind; completes once its initial list is in the graph
   * @param untrack stops tracking a kind (its objects leave the graph)
   */
  public ServedKinds(Discovery discovery, Predicate<String> definedByCrd, Predicate<String> tracked,
      Function<TrackedKind, CompletableFuture<Void>> track, java.util.function.Consumer<TrackedKind> untrack) {
    this.untrack = untrack;
    this.discovery = discovery;
    this.definedByCrd = definedByCrd;
    this.tracked = tracked;
    this.track = track;
  }

  /** Tracks every served deletable kind not tracked yet; the futures complete with their initial lists. */
  public List<CompletableFuture<Void>> trackNew() {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    List<TrackedKind> served = discovery.deletableKinds();
    for (TrackedKind k : served) {
      if (!tracked.test(k.groupKind()) && !definedByCrd.test(k.groupKind())) {
        mine.put(k.groupKind(), k);
        started.add(track.apply(k));
      }
    }
    java.util.Set<String> servedNow = new java.util.HashSet<>();
    served.forEach(k -> servedNow.add(k.groupKind()));
    for (TrackedKind k : List.copyOf(mine.values())) {
      if (!servedNow.contains(k.groupKind())) {
        mine.remove(k.groupKind());
        if (!definedByCrd.test(k.groupKind())) { // else CrdKinds tracks it now
          log.info("kind no longer served, stopped tracking kind={}", k);
          untrack.accept(k);
        }
      }
    }
    return started;
  }

  /**
   * Looks again every {@code interval}: when the API server's groups and versions changed, discovery
   * is read afresh, new kinds tracked and kinds no longer served dropped.
   */
  public void start(Duration interval) {
    timer.scheduleWithFixedDelay(() -> {
      try {
        if (!discovery.refreshIfGroupsChanged()) {
          return; // the same group-versions: nothing served anew, nothing gone
        }
        int added = trackNew().size();
        if (added > 0) {
          log.info("tracking kinds served since the last look count={}", added);
        }
      } catch (RuntimeException e) {
        log.warn("discovery of served kinds failed error={}", e.toString());
      }
    }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
