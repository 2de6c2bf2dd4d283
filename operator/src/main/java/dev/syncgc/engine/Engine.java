package dev.syncgc.engine;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.Removal;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.http.Liveness;
import dev.syncgc.kube.reflector.Watches;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.LiveKindInfo;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.policy.PolicyStore;
import dev.syncgc.policy.Policies;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graph builder and the workers: turns watch events into graph changes and queue entries,
 * and runs the workers that sync one object at a time.
 */
public final class Engine implements Reflectors.ObjectEvents, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Engine.class);

  /** API calls in flight for owners' dependents at once, across all workers. */
  private static final int PARALLEL_CALLS = 64;

  private final DependencyGraph graph;
  private final Discovery discovery;
  private final ObjectStates states;
  private final InUseHolds holds;
  private final WorkQueue queue;
  private final SyncgcMetrics metrics;
  private final Reflectors reflectors;
  private final FreshnessBarrier barrier;
  private final ParallelCalls calls;
  private final ExecutorService listPool = Executors.newFixedThreadPool(16, r -> {
    Thread t = new Thread(r, "freshness-list");
    t.setDaemon(true);
    return t;
  });
  private final StepExecutor executor;
  private final PauseWatch pauses;
  private final ObjectSync sync;
  private final Workers workers;
  private final PolicyStore policies;

  /**
   * @param namespaceLabels the labels of a namespace, for policies' namespace selectors
   * @param api the writes (DELETE, PATCH) and lookups of the workers
   * @param reads the watches and LISTs: on a connection of their own (see {@code Operator}), so that the
   *     long-lived watches never take the streams the writes need
   */
  public Engine(Discovery discovery, EngineSettings settings, KubeApi api, KubeApi reads,
      EventRecorder events, SyncgcMetrics metrics, Clock clock,
      Function<String, Map<String, String>> namespaceLabels) {
    this.discovery = discovery;
    this.metrics = metrics;
    this.queue = new WorkQueue(Duration.ofMillis(100), Duration.ofMinutes(2), metrics.queueMeters());
    this.pauses = new PauseWatch(System::nanoTime, settings.pauseLimit());
    this.holds = new InUseHolds(System::nanoTime, clock);
    this.reflectors = new Reflectors(reads, settings.namespaces(), settings.initialListTimeout(), this);
    // an owner of a kind syncgc may not list (RBAC) is out of sight: presumed solid, as one not tracked
    this.graph = new DependencyGraph(new LiveKindInfo(discovery, reflectors::listable));
    this.states = new ObjectStates(uid -> graph.get(uid) != null);
    this.barrier = new FreshnessBarrier(reads::listMetadata, reflectors::deliveredUpTo, settings.namespaces(),
        graph::knows, this::upserted, metrics::unseenFound, System::nanoTime, listPool, states);
    DeletionReporter reporter = new DeletionReporter(events, metrics, clock, settings.waitingEventInterval(),
        () -> DeletionReporter.notChecked(reflectors.refusedKinds(), discovery.unreadGroupVersions()), states);
    this.calls = new ParallelCalls(PARALLEL_CALLS);
    // a policy changed: every object is looked at again
    this.policies = new PolicyStore(namespaceLabels, graph::snapshot,
        () -> graph.snapshot().forEach(o -> queue.add(o.uid())));
    Function<ObjectMetadata, SettingsInForce> inForce = SettingsInForce.resolver(policies::settingsOf, graph::get);
    graph.usersFrom(o -> inForce.apply(o).usersFrom()); // users-from: the annotation, else the policy's
    this.executor = new StepExecutor(graph, api, reporter, reflectors, queue, clock, settings.recheckInterval(), calls,
        states, new SendCheck(graph, inForce, SettingsInForce.cascades(policies::settingsOf)), pauses::paused, holds);
    var planner = new DeletionPlanner(settings.timeoutBase(), settings.timeoutPerDependent(), settings.inUse());
    this.sync = new ObjectSync(graph, planner, executor, barrier, api, events, metrics, reflectors, discovery,
        policies, clock, states, inForce, settings.inUse());
    this.workers = new Workers(queue, sync::sync, settings.workers());
    metrics.silentWatches(reflectors::silentWatchesRestarted);
    metrics.unreadGroupVersions(() -> discovery.unreadGroupVersions().size());
    metrics.forbiddenKinds(() -> reflectors.refusedKinds().size());
    metrics.discoveryFailures(discovery::failures);
    metrics.leader(() -> workers.progress().workersRunning()); // the workers run while this replica leads
    metrics.gauges(sync::inProgress, sync::oldestInProgressAgeSeconds, graph::size, graph::ownerReferences,
        graph::virtualSize, queue::depth);
    metrics.inUseGauges(holds::count, holds::oldestAgeSeconds);
  }

  /** Starts watching a kind; completes when its initial list is in the graph. */
  public CompletableFuture<Void> track(TrackedKind kind) {
    discovery.learn(kind);
    metrics.watchRestarts(kindLabel(kind), Reflectors.RESTART_REASONS); // at 0 from the start, for alerts
    return reflectors.track(kind);
  }

  /** Tracked kinds whose list and watch the API server refuses (403), as group/Kind. */
  public List<String> forbiddenKinds() {
    return reflectors.refusedKinds();
  }

  /** Whether a group/kind is tracked. */
  public boolean tracks(String groupKind) {
    return reflectors.tracks(groupKind);
  }

  /**
   * Its CRD is deleted, or its API no longer served: the API server deleted every object of a CRD's
   * kind before the CRD went (its cleanup finalizer), and a kind no longer served shows none, so none
   * is left in the graph, whether or not their watch events came before its reflectors stopped; one
   * left there would hold its owners for ever. They are forgotten, not marked deleted: an API that is
   * served again (an aggregated API registered anew) may still hold them, and its list brings them back.
   */
  public void untrack(TrackedKind kind) {
    reflectors.untrack(kind);
    Removal removal = graph.forgetIf(o -> o.ref().group().equals(kind.group())
        && o.ref().kind().equals(kind.kind()));
    forget(removal);
    if (!removal.uids().isEmpty()) {
      log.info("kind={} is no longer served; {} of its objects left the graph", kind, removal.uids().size());
    }
  }

  /**
   * A (re)list replaces what the graph holds of the kind in that namespace: an object the list did not
   * hold and not newer than the list is gone (deleted while no watch saw it, or under a replaced
   * kind's version). One newer than the list stays: the freshness check read it after the list, and
   * the watch from the list's version will bring its deletion. An opaque resourceVersion says nothing.
   */
  @Override
  public void watchRestarted(TrackedKind kind, String reason) {
    metrics.watchRestarted(kindLabel(kind), reason);
  }

  /** A kind as a metric's label: Deployment.apps, ConfigMap. */
  private static String kindLabel(TrackedKind kind) {
    return kind.group().isEmpty() ? kind.kind() : kind.kind() + "." + kind.group();
  }

  @Override
  public void listed(TrackedKind kind, String namespace, long at, Set<String> held) {
    Removal removal = graph.removeIf(o -> o.ref().kind().equals(kind.kind())
        && o.ref().group().equals(kind.group()) && (namespace == null || namespace.equals(o.ref().namespace()))
        && !held.contains(o.uid()) && o.resourceVersion() > 0 && o.resourceVersion() <= at);
    forget(removal);
    if (!removal.uids().isEmpty()) {
      log.info("listed kind={} namespace={} at={}: {} objects it no longer holds left the graph uids={}", kind,
          namespace, at, removal.uids().size(),
          removal.uids().size() <= 10 ? removal.uids() : removal.uids().subList(0, 10));
    }
  }

  private void forget(Removal removal) {
    for (String owner : removal.owners()) {
      queue.add(owner);
    }
    for (ObjectMetadata gone : removal.objects()) {
      leftBehindBy(gone.uid()).forEach(queue::add); // removed from the graph already
      holds.namedBy(null, gone).forEach(queue::add); // a user went: what it used may go now
      holds.release(gone.uid());
      states.forget(gone.uid()); // everything kept about it goes with it
    }
  }

  @Override
  public void upserted(TrackedKind kind, ObjectMetadata meta) {
    if (meta.beingDeleted()) {
      barrier.deletionSeen(meta);
      executor.deletionSeen(meta.uid());
    }
    ObjectMetadata before = graph.get(meta.uid());
    for (String owner : graph.upsert(meta)) {
      queue.add(owner);
    }
    if (meta.beingDeleted() && before == null && graph.get(meta.uid()) == null) {
      states.forget(meta.uid()); // a late copy of an object seen deleted: the graph took none, nor do we
    }
    holds.namedBy(before, meta).forEach(queue::add); // a user changed: what it used may go now
    sync.observed(meta, before == null);
    queue.add(meta.uid());
  }

  @Override
  public void deleted(TrackedKind kind, ObjectMetadata object) {
    String uid = object.uid();
    List<String> leftBehind = leftBehindBy(uid);
    for (String owner : graph.remove(uid)) {
      queue.add(owner);
    }
    leftBehind.forEach(queue::add);
    holds.namedBy(null, object).forEach(queue::add); // a user went: what it used may go now
    holds.release(uid);
    states.forget(uid); // everything kept about it goes with it
  }

  /**
   * An owner is going: what its Release deadline left behind may go once it has left the graph
   * (LeftBehindSync), so the caller queues them after the removal.
   */
  private List<String> leftBehindBy(String owner) {
    List<String> found = new ArrayList<>();
    for (ObjectMetadata d : graph.dependentsOf(owner)) {
      if (d.annotation(Names.LEFT_BEHIND_BY) != null) {
        found.add(d.uid());
      }
    }
    return found;
  }

  /** Starts the workers; call once every kind has listed, so no decision rests on a partial graph. */
  public void startWorkers() {
    workers.start();
    log.info("workers started objects={}", graph.size());
  }

  /**
   * No worker takes another object; a sync in progress finishes. Called first when this replica
   * stops leading or shuts down.
   */
  public void stopWorkers() {
    workers.stop();
  }

  /**
   * Watches for a pause of this process ({@link PauseWatch}): from the moment it ends no write goes;
   * once noticed the workers stop and {@code exit} runs (the process starts again with a fresh view).
   */
  public void exitAfterAPause(Runnable exit) {
    pauses.start(() -> {
      stopWorkers();
      exit.run();
    });
  }

  /** What the policy reconciler changes. */
  public Policies policies() {
    return policies;
  }

  /** A namespace's labels changed: policies may now decide otherwise for its objects. */
  public void namespaceChanged(String namespace) {
    if (!policies.any()) {
      return; // only policies' namespace selectors read namespace labels
    }
    for (ObjectMetadata object : graph.snapshot()) {
      if (namespace.equals(object.ref().namespace())) {
        queue.add(object.uid());
      }
    }
  }

  /** Every observed object of the graph, as it holds it now. */
  public List<ObjectMetadata> graphSnapshot() {
    return graph.snapshot();
  }

  /** For liveness: the workers' progress through the queue. */
  public Liveness.Work workProgress() {
    return workers.progress();
  }

  /** For liveness: the tracked kinds' watches. */
  public Watches watches() {
    return reflectors.watches();
  }

  @Override
  public void close() {
    pauses.close();
    queue.shutdown();
    calls.close();
    listPool.shutdownNow();
    reflectors.close();
  }
}
