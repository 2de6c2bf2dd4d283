package dev.syncgc.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Many tracked objects: heap per object, graph rebuild at start-up, deletion latency under that load. */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Keeps many tracked objects and measures syncgc's heap per object, start-up and latency.")
final class ScaleCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(ScaleCommand.class);
  static final List<String> HEADER = List.of("figure", "repetition", "value");
  static final String RUN = "scale";

  @Mixin Options opts;

  @Option(names = "--objects", defaultValue = "100000",
      description = "Tracked objects to create (default: ${DEFAULT-VALUE}).")
  int objects;

  @Option(names = "--namespaces", defaultValue = "10",
      description = "Namespaces they are spread over (default: ${DEFAULT-VALUE}).")
  int namespaces;

  @Option(names = "--dependents", defaultValue = "9",
      description = "Dependents per owner among them (default: ${DEFAULT-VALUE}).")
  int dependents;

  @Option(names = "--repetitions", defaultValue = "3",
      description = "Operator start-ups measured (default: ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(names = "--latency-samples", defaultValue = "5",
      description = "Owner deletions timed under load (default: ${DEFAULT-VALUE}).")
  int latencySamples;

  @Option(names = "--latency-dependents", defaultValue = "3",
      description = "Dependents of each such owner (default: ${DEFAULT-VALUE}).")
  int latencyDependents;

  @Option(names = "--keep", description = "Leave the objects in the cluster afterwards.")
  boolean keep;

  @Option(names = "--reuse", description = "Measure start-ups and latency over the objects a `--keep` run left "
      + "(same --namespaces): nothing is created or deleted, kube-controller-manager is not measured, no cascades. "
      + "Pairs operator jars over one set of objects: a 1,000,000-object cluster takes 14 minutes to fill. Give it "
      + "a --scale-csv of its own: the default one feeds docs/benchmarks.md's scale section.")
  boolean reuse;

  private final Csv csv = new Csv(HEADER);

  @Override
  public Integer call() throws Exception {
    try (Session session = Session.open(opts, "scale", csv)) {
      Cluster cluster = session.cluster;
      KcmMetrics kcmMetrics = session.kcmMetrics;
      csv.meta.put("namespaces", Integer.toString(namespaces));
      csv.meta.put("dependents", Integer.toString(dependents));
      csv.meta.put("repetitions", Integer.toString(repetitions));
      csv.meta.put("latency_dependents", Integer.toString(latencyDependents));
      csv.meta.put("note", opts.note);
      csv.meta.put("operator_heap", opts.operatorHeap);
      csv.meta.put("kcm_qps", Fmt.num(opts.qps) + "/" + opts.burst);
      if (!reuse) {
        cluster.deleteNamespacesAndWait(RUN, 1800);
      }
      // kube-controller-manager restarted with syncgc's QPS (its cascade below), and its collector known to watch
      // bench items before its heap is read.
      Kcm kcm = new Kcm(cluster, opts.logs, opts.qps, opts.burst);
      boolean withKcm = !reuse && kcmMetrics.available();
      double kcmAdds0 = 0;
      try {
        if (withKcm) {
          kcm.ensure(Kcm.Mode.RAISED);
          kcmMetrics.awaitGraphSettled(0, 120);
          kcmAdds0 = kcmMetrics.graphChanges();
          double kcmBaseline = Math.min(kcmMetrics.heapAfterGc(), kcmMetrics.heapAfterGc());
          add("kcm_baseline_heap_bytes", 0, kcmBaseline);
          log.info("kube-controller-manager, empty cluster: heap {} after a forced GC", Fmt.mib(kcmBaseline));
        }
        run(cluster, session.pool, session.syncgc, withKcm ? kcmMetrics : null, kcmAdds0);
      } finally {
        try {
          kcm.restore();
        } catch (IllegalStateException e) {
          // at 1,000,000 objects its collector works through a queue of ~90,000 owners listed after their
          // dependents first (a GET each at its default 20 QPS): the figures above stand
          log.warn("kube-controller-manager restarted at its own settings, but {}; writing the figures anyway",
              e.getMessage());
        }
      }
      session.stamp();
      csv.write(opts.scaleCsv);
      Report.writeMarkdown(opts);
      log.info("wrote {} and {}", opts.scaleCsv, opts.docs);
      if (!keep && !reuse) {
        cluster.deleteNamespacesAndWait(RUN, 1800);
      }
    }
    return 0;
  }

  private void run(Cluster cluster, Parallel pool, SyncgcProcess syncgc, KcmMetrics kcm, double kcmAdds0)
      throws Exception {
    // With --reuse the cluster is not empty: the baseline operator watches kube-public only (nearly the
    // empty cluster's graph: its cluster-scoped objects)
    syncgc.start(reuse ? List.of("--namespaces", "kube-public") : List.of());
    syncgc.awaitReady(Duration.ofMinutes(5));
    Thread.sleep(3000);
    double baseline = Math.min(syncgc.heapAfterGc(), syncgc.heapAfterGc());
    double graphBaseline = syncgc.graphObjects();
    add("baseline_heap_bytes", 0, baseline);
    log.info("fresh operator, {}: heap {} after full GC, {} objects in its graph",
        reuse ? "watching kube-public only" : "empty cluster", Fmt.mib(baseline), Fmt.count(graphBaseline));
    syncgc.stop();

    ScaleObjects tracked = new ScaleObjects(cluster, objects, namespaces, dependents);
    int created;
    if (reuse) {
      created = tracked.existing();
      add("objects", 0, created);
      log.info("reusing {} objects left in the cluster", Fmt.count(created));
    } else {
      long t0 = System.nanoTime();
      created = tracked.create(pool);
      double createSeconds = (System.nanoTime() - t0) / 1e9;
      add("objects", 0, created);
      add("create_seconds", 0, createSeconds);
      log.info("created {} objects in {} ({} per second)", Fmt.count(created), Fmt.seconds(createSeconds),
          Fmt.count(created / createSeconds));
    }
    if (kcm != null) {
      kcm.awaitGraphSettled(kcmAdds0 + created, 900);
      double kcmHeap = Math.min(kcm.heapAfterGc(), kcm.heapAfterGc());
      add("kcm_heap_bytes", 0, kcmHeap);
      double kcmBaseline = csvValue("kcm_baseline_heap_bytes");
      add("kcm_heap_per_object_bytes", 0, (kcmHeap - kcmBaseline) / created);
      log.info("kube-controller-manager with the objects: heap {} after a forced GC: {} B per object",
          Fmt.mib(kcmHeap), Math.round((kcmHeap - kcmBaseline) / created));
    }
    Thread.sleep(5000);

    String latencyNs = "syncgc-bench-scale-latency";
    if (cluster.client.namespaces().withName(latencyNs).get() == null) { // --reuse: the --keep run's is left
      cluster.createNamespace(latencyNs, RUN);
    }
    LatencyProbe probe = new LatencyProbe(cluster, latencyNs, latencyDependents);
    for (int rep = 1; rep <= repetitions; rep++) {
      syncgc.start();
      Duration ready = syncgc.awaitReady(Duration.ofMinutes(15));
      double complete = awaitGraphComplete(syncgc, ready, graphBaseline + created);
      double[] built = syncgc.graphBuilt();
      Thread.sleep(2000);
      double heap = syncgc.heapAfterGc();
      double graph = syncgc.graphObjects();
      add("ready_seconds", rep, ready.toMillis() / 1000.0);
      add("graph_complete_seconds", rep, complete);
      if (built != null) {
        add("graph_build_seconds", rep, built[0]);
      }
      add("graph_objects", rep, graph);
      add("heap_bytes", rep, heap);
      add("heap_per_object_bytes", rep, (heap - baseline) / created);
      log.info("start-up {}: ready after {}, every object in the graph after {}, graph built in {} (log), {} "
          + "objects in the graph, heap {} after full GC: {} B per object", rep,
          Fmt.seconds(ready.toMillis() / 1000.0), Fmt.seconds(complete), built == null ? "?" : Fmt.seconds(built[0]), Fmt.count(graph), Fmt.mib(heap),
          Math.round((heap - baseline) / created));
      if (rep == repetitions) {
        for (int i = 1; i <= latencySamples; i++) {
          double latency = probe.measure(i);
          add("latency_seconds", i, latency);
          log.info("latency {}: owner's DELETE to first dependent marked or gone: {} ms", i,
              Math.round(latency * 1000));
        }
        if (kcm != null && namespaces >= 3) {
          // The first cascade of a fresh JVM pays for compiling its code paths; the second is the steady state.
          Cascade.bySyncgc(cluster, pool, syncgc, "syncgc-bench-scale-0", "syncgc", this::add);
          Cascade.byKcm(cluster, pool, kcm, "syncgc-bench-scale-1", this::add);
          Cascade.bySyncgc(cluster, pool, syncgc, "syncgc-bench-scale-2", "syncgc_warm", this::add);
        }
      }
      syncgc.stop();
    }
  }

  /**
   * Seconds from the operator's start until its graph holds every object: readiness does not wait for
   * a kind whose initial list takes longer than --initial-list-timeout (it goes on in the background).
   */
  private static double awaitGraphComplete(SyncgcProcess syncgc, Duration ready, double expected)
      throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.MINUTES.toNanos(15);
    while (syncgc.graphObjects() < expected && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    return ready.toMillis() / 1000.0 + (System.nanoTime() - t0) / 1e9;
  }

  private double csvValue(String figure) {
    return csv.rows.stream().filter(r -> figure.equals(r.get("figure"))).mapToDouble(r -> Csv.number(r, "value"))
        .findFirst().orElse(Double.NaN);
  }

  private void add(String figure, int repetition, double value) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("figure", figure);
    row.put("repetition", repetition);
    row.put("value", Fmt.plain(value, 6));
    csv.add(row);
  }
}
