package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cascade of an in-use run: {@code owners} owners annotated Synchronous, each with {@code dependents}
 * dependents (usage edges or waves between siblings by variant), every owner deleted at once; timed until the
 * last object is gone, with the operator's counters and heap across it.
 */
final class InUseCascade {
  private static final Logger log = LoggerFactory.getLogger(InUseCascade.class);
  private static final int GRAPH_SLACK = 10;

  private final Session session;
  private final RunOptions runs;
  private final String run;
  private final int owners;
  private final int dependents;
  private final SiblingUses.Shape shape;
  private final AtomicInteger attempts = new AtomicInteger();

  InUseCascade(Session session, RunOptions runs, String run, int owners, int dependents, SiblingUses.Shape shape) {
    this.session = session;
    this.runs = runs;
    this.run = run;
    this.owners = owners;
    this.dependents = dependents;
    this.shape = shape;
  }

  /** Runs one cascade of {@code variant}; repetition 0 is an untimed warm-up (an empty row). */
  Map<String, Object> runOne(String variant, int rep) throws Exception {
    Cluster cluster = session.cluster;
    Parallel pool = session.pool;
    SyncgcProcess syncgc = session.syncgc;
    boolean edges = variant.equals(InUseCommand.USES);
    String ns = ("syncgc-bench-" + run + "-" + variant + "-" + (rep == 0 ? "w" : "r") + attempts.incrementAndGet())
        .toLowerCase(Locale.ROOT);
    cluster.createNamespace(ns, run);
    int objects = owners * (dependents + 1);
    double graphBefore = syncgc.graphObjects();

    long t0 = System.nanoTime();
    List<String> ownerUids = pool.map(owners, k -> cluster.api.create(BenchCrd.item(ns, SiblingUses.owner(k),
        List.of(), Map.of(Names.PROPAGATION, "Synchronous"), Map.of(), k)));
    pool.map(owners * dependents, j -> {
      int k = j / dependents;
      int i = j % dependents;
      return cluster.api.create(BenchCrd.item(ns, SiblingUses.dependent(k, i),
          List.of(BenchCrd.owner(SiblingUses.owner(k), ownerUids.get(k))),
          variant.equals(InUseCommand.WAVES) ? SiblingUses.wave(shape, i, dependents)
              : SiblingUses.annotations(shape, edges, k, i, dependents), Map.of(), i));
    });
    double createSeconds = (System.nanoTime() - t0) / 1e9;
    awaitOptedIn(cluster, ns);
    awaitGraph(syncgc, graphBefore + objects);
    Thread.sleep(runs.settleMillis(objects));

    String load = Machine.load().split(" ")[0];
    Map<String, Integer> order = new ConcurrentHashMap<>();
    List<Double> ownerSeconds = Collections.synchronizedList(new ArrayList<>());
    double seconds;
    String before = syncgc.metrics();
    long gcMark = syncgc.gcMark();
    String outcome = "ok";
    try (DeletionWatch watch = new DeletionWatch(cluster, ns, objects, order, ownerSeconds)) {
      watch.awaitListed();
      long start = System.nanoTime();
      watch.start(start);
      pool.map(owners, k -> cluster.api.delete(ns, SiblingUses.owner(k), ownerUids.get(k), "Background"));
      seconds = watch.awaitAllGone(start, runs.runTimeout());
    } catch (RuntimeException e) {
      log.error("{} (repetition {}) failed: {}", variant, rep, e.getMessage());
      seconds = Double.NaN;
      outcome = "failed: " + e.getMessage();
    }
    // Requests that trail the last release (Events, which queue behind the deletions) belong to this run: wait
    // until the operator sends none, so that they are counted here and do not spill into the next run.
    long drainStart = System.nanoTime();
    String after = awaitQuiet(syncgc);
    double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
    double cpu = Prom.delta(before, after, "process_cpu_seconds_total", null);
    double requests = Prom.delta(before, after, "syncgc_api_requests_total", null);
    double invalid = Prom.delta(before, after, "syncgc_invalid_annotations_total", null);
    double timedOut = Prom.delta(before, after, "syncgc_deletions_finished_total", "outcome=\"timed_out\"");
    if (timedOut > 0 && outcome.equals("ok")) {
      outcome = "timed_out";
    }
    String byVerb = Prom.deltaByLabel(before, after, "syncgc_api_requests_total", "verb").entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(e -> e.getKey() + "=" + Math.round(e.getValue())).collect(Collectors.joining(";"));
    GcLog.Peak peak = syncgc.gcSince(gcMark);
    double heap = syncgc.heapAfterGc();
    long leftover = cluster.remainingItems(ns);
    int violations = SiblingUses.violations(shape, order, owners, dependents);
    String events = cluster.eventsByReason(ns);
    cluster.deleteNamespaceAndWait(ns);
    List<Double> owned = new ArrayList<>(ownerSeconds);
    Collections.sort(owned);
    double ownerMedian = Stats.of(owned).median();
    double ownerP90 = owned.isEmpty() ? Double.NaN : owned.get(Math.min(owned.size() - 1, (int) (owned.size() * 0.9)));
    log.info("{} {} ({} objects, created in {}): {} (owners gone: median {}, p90 {}), CPU {}, {} requests ({}), heap peak {} (after GC at most {}), "
            + "{} of {} usage pairs deleted used-first, Events {}, quiet after {}{}{}  [{} s elapsed]",
        rep == 0 ? "warm-up" : "r" + rep, variant, Fmt.count(objects), Fmt.seconds(createSeconds),
        Fmt.seconds(seconds), Fmt.seconds(ownerMedian), Fmt.seconds(ownerP90), Fmt.seconds(cpu), Fmt.count(requests), byVerb, Fmt.mib(peak.beforeBytes()),
        Fmt.mib(peak.afterBytes()), violations, owners * SiblingUses.pairs(dependents), events, Fmt.seconds(drainSeconds),
        invalid > 0 ? ", " + Math.round(invalid) + " InvalidAnnotation" : "",
        leftover > 0 ? ", " + leftover + " objects LEFT" : "", session.elapsedSeconds());
    if (rep == 0) {
      return Map.of();
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("variant", variant);
    row.put("repetition", rep);
    row.put("owners", owners);
    row.put("dependents", dependents);
    row.put("objects", objects);
    row.put("seconds", Fmt.plain(seconds, 3));
    row.put("owner_median_seconds", Fmt.plain(ownerMedian, 3));
    row.put("owner_p90_seconds", Fmt.plain(ownerP90, 3));
    row.put("cpu_seconds", Fmt.plain(cpu, 3));
    row.put("api_requests", Fmt.plain(requests, 0));
    row.put("requests_by_verb", byVerb);
    row.put("peak_heap_bytes", Fmt.plain(peak.beforeBytes(), 0));
    row.put("live_heap_bytes", Fmt.plain(peak.afterBytes(), 0));
    row.put("heap_bytes", Fmt.plain(heap, 0));
    row.put("create_seconds", Fmt.plain(createSeconds, 3));
    row.put("drain_seconds", Fmt.plain(drainSeconds, 1));
    row.put("load1", load);
    row.put("order_violations", violations);
    row.put("invalid_annotations", Fmt.plain(invalid, 0));
    row.put("events_by_reason", events);
    row.put("leftover", leftover);
    row.put("outcome", outcome);
    return row;
  }

  /** /metrics once syncgc_api_requests_total has not grown for 3 s (at most 600 s). */
  private static String awaitQuiet(SyncgcProcess syncgc) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
    String last = syncgc.metrics();
    double requests = Prom.sum(last, "syncgc_api_requests_total", null);
    int quiet = 0;
    while (quiet < 3 && System.nanoTime() < deadline) {
      Thread.sleep(1000);
      last = syncgc.metrics();
      double now = Prom.sum(last, "syncgc_api_requests_total", null);
      quiet = now == requests ? quiet + 1 : 0;
      requests = now;
    }
    if (quiet < 3) {
      log.warn("syncgc still sends requests 600 s after the cascade; counting what it sent so far");
    }
    return last;
  }

  /** Until syncgc has put its finalizer on every owner (it opts them in as it sees them). */
  private void awaitOptedIn(Cluster cluster, String ns) throws InterruptedException {
    var items = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (true) {
      long marked = items.list().getItems().stream().filter(r -> r.getMetadata().getOwnerReferences().isEmpty()
          && r.getMetadata().getFinalizers().contains(Names.FINALIZER)).count();
      if (marked == owners) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("syncgc put its finalizer on " + marked + " of " + owners + " owners in "
            + ns + " within 300 s");
      }
      Thread.sleep(500);
    }
  }

  /** Until the operator's graph holds the objects (its watch may lag behind the creates). */
  private static void awaitGraph(SyncgcProcess syncgc, double expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (syncgc.graphObjects() < expected - GRAPH_SLACK) {
      if (System.nanoTime() > deadline) {
        log.warn("syncgc's graph has {} objects, expected at least {}; going on", syncgc.graphObjects(),
            expected - GRAPH_SLACK);
        return;
      }
      Thread.sleep(100);
    }
  }
}
