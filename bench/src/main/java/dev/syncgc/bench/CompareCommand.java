package dev.syncgc.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** syncgc against the built-in foreground deletion (two QPS settings) and the floor, interleaved per repetition. */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Deletes fresh trees with each contender, interleaved, and reports median and min-max.")
final class CompareCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(CompareCommand.class);
  static final List<String> HEADER = List.of("workload", "shape", "fan_out", "depth", "objects", "contender",
      "repetition", "seconds", "api_requests", "requests_by_verb", "heap_bytes", "leftover", "outcome",
      "create_seconds", "load1", "cpu_seconds", "peak_heap_bytes", "live_heap_bytes");

  @Mixin Options opts;
  @Mixin RunOptions runs;

  @Option(names = "--wide", split = ",", defaultValue = "500",
      description = "Wide workloads: one owner with N direct dependents, comma-separated; 0 for none (default: "
          + "${DEFAULT-VALUE}; the comparison target is at 2000, which takes the built-in collector ~150 s a run at its default QPS).")
  List<Integer> wide;

  @Option(names = "--tree", split = ",", defaultValue = "10x3",
      description = "Tree workloads FANOUTxDEPTH, comma-separated (10x3: 1,111 objects, 10x4: 11,111); "
          + "'none' for none (default: ${DEFAULT-VALUE}).")
  List<String> trees;

  @Option(names = "--contenders", split = ",", defaultValue = "syncgc,foreground,foreground-qps,floor,syncgc-unlimited,floor-unlimited",
      description = "Among syncgc, syncgc-keep (syncgc with every tenth dependent annotated syncgc.dev/keep: "
          + "\"true\": patched, not deleted), foreground (kcm at its default QPS), foreground-qps (kcm at --qps/--burst), "
          + "floor, syncgc-unlimited (--kube-api-qps 0), floor-unlimited (no token bucket) (default: ${DEFAULT-VALUE}).")
  List<String> contenderIds;

  @Option(names = "--only", split = ",",
      description = "Limit a contender to some workloads: CONTENDER=WORKLOAD/WORKLOAD..., e.g. "
          + "foreground=wide-1000/tree-10x4 (the built-in collector at 20 QPS needs about 20 min for 11,111 objects).")
  Map<String, String> only = new LinkedHashMap<>();

  @Option(names = "--warm-up", split = ",", defaultValue = "wide-2000,tree-10x3",
      description = "Untimed cascades each started operator runs first, so that the timed ones see the steady "
          + "state of a long-running operator (as kube-controller-manager's collector and the floor, in the warm "
          + "bench JVM, do), not its JIT compiler at work; 'none' for none (default: ${DEFAULT-VALUE}).")
  List<String> warmUp;

  @Option(names = "--growth", description = "Write the results to --growth-csv (the report's section on cost as "
      + "work grows) instead of --csv.")
  boolean growth;

  @Option(names = "--floor-parallelism", defaultValue = "64",
      description = "DELETE requests the floor keeps in flight (default: ${DEFAULT-VALUE}).")
  int floorParallelism;

  @Override
  public Integer call() throws Exception {
    List<Workload> workloads = workloads();
    List<Contender> contenders = contenderIds.stream().map(String::trim).filter(s -> !s.isEmpty()).distinct()
        .map(Contender::of).toList();
    if (workloads.isEmpty() || contenders.isEmpty() || runs.repetitions < 1) {
      throw new IllegalArgumentException("nothing to run: give workloads, contenders and repetitions >= 1");
    }
    Csv csv = new Csv(HEADER);
    String run = "cmp-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMddHHmmss"));
    try (Session session = Session.open(opts, "compare", csv);
        Parallel deletePool = new Parallel(floorParallelism, "floor")) {
      Cluster cluster = session.cluster;
      SyncgcProcess syncgc = session.syncgc;
      KcmMetrics kcmMetrics = session.kcmMetrics;
      csv.meta.put("repetitions", Integer.toString(runs.repetitions));
      csv.meta.put("workloads", String.join(" ", workloads.stream().map(Workload::name).toList()));
      csv.meta.put("contenders", String.join(" ", contenders.stream().map(Contender::id).toList()));
      csv.meta.put("qps", Fmt.num(opts.qps));
      csv.meta.put("burst", Integer.toString(opts.burst));
      csv.meta.put("kcm_default_qps", Kcm.DEFAULT_QPS);
      csv.meta.put("floor_parallelism", Integer.toString(floorParallelism));
      csv.meta.put("settle", runs.settleNote());
      csv.meta.put("warm_up", warmUpWorkloads().isEmpty() ? "none" : String.join(" ", warmUp));
      csv.meta.put("note", opts.note);
      csv.meta.put("operator_heap", opts.operatorHeap);
      only.forEach((c, ws) -> csv.meta.put("only_" + c, ws.replace('/', ' ')));
      for (Contender c : contenders) {
        csv.meta.put("title_" + c.id(), c.title(opts.qps, opts.burst));
      }
      log.info("benchmark {}: {} x {} x {} repetitions; load average {}", run,
          workloads.stream().map(Workload::name).toList(), contenders.stream().map(Contender::id).toList(),
          runs.repetitions, Machine.load());

      removeStaleNamespaces(cluster);
      Kcm kcm = new Kcm(cluster, opts.logs, opts.qps, opts.burst);
      Contender.Context ctx = new Contender.Context(cluster, syncgc, kcmMetrics.available() ? kcmMetrics : null,
          deletePool, opts.qps, opts.burst, runs.runTimeout());
      TreeBuilder builder = new TreeBuilder(cluster.api, session.pool);
      try {
        for (int rep = 1; rep <= runs.repetitions; rep++) {
          // Alternate the kube-controller-manager settings so that each repetition needs one restart only.
          List<Kcm.Mode> phases = rep % 2 == 1 ? List.of(Kcm.Mode.DEFAULT, Kcm.Mode.RAISED)
              : List.of(Kcm.Mode.RAISED, Kcm.Mode.DEFAULT);
          for (Kcm.Mode mode : phases) {
            List<Contender> phase = contenders.stream().filter(c -> c.kcm() == mode).toList();
            if (phase.isEmpty()) {
              continue;
            }
            kcm.ensure(mode);
            for (Contender c : phase) {
              if (c.usesOperator()) {
                syncgc.start(c.operatorArgs());
                syncgc.awaitReady(Duration.ofMinutes(5));
                for (Workload w : warmUpWorkloads()) {
                  runOne(session, builder, ctx, run, w, c, WARM_UP); // untimed: not in the CSV
                }
              }
              for (Workload w : workloads) {
                if (allowed(c, w)) {
                  csv.add(runOne(session, builder, ctx, run, w, c, rep));
                }
              }
              if (c.usesOperator()) {
                syncgc.stop();
              }
            }
          }
          session.stamp();
          csv.write(out()); // keep what is done so far
        }
      } finally {
        syncgc.stop();
        kcm.restore();
      }
      session.stamp();
    }
    csv.write(out());
    System.out.println();
    System.out.println(Report.console(csv));
    Report.writeMarkdown(opts);
    log.info("wrote {} and {} (make bench-plot draws the figures)", out(), opts.docs);
    return 0;
  }

  /** The repetition number of an untimed warm-up cascade: logged, never in the CSV (timed ones count from 1). */
  private static final int WARM_UP = 0;
  private final AtomicInteger warmUps = new AtomicInteger();

  private List<Workload> warmUpWorkloads() {
    return warmUp.stream().map(String::trim).filter(s -> !s.isEmpty() && !s.equals("none")).map(Workload::named)
        .toList();
  }

  private Map<String, Object> runOne(Session session, TreeBuilder builder, Contender.Context ctx, String run,
      Workload w, Contender c, int rep) throws Exception {
    String attempt = rep == WARM_UP ? "w" + warmUps.incrementAndGet() : "r" + rep; // a workload may warm up twice
    String ns = ("syncgc-bench-" + w.name() + "-" + c.id() + "-" + attempt + "-" + run.substring(run.length() - 4))
        .toLowerCase();
    Cluster cluster = session.cluster;
    cluster.createNamespace(ns, run);
    double graphBefore = c.usesOperator() ? ctx.syncgc().graphObjects() : 0;
    long t0 = System.nanoTime();
    Tree tree = builder.create(ns, w, c.rootAnnotations(), c.keepEvery());
    double createSeconds = (System.nanoTime() - t0) / 1e9;
    c.prepare(ctx, tree, graphBefore);
    Thread.sleep(runs.settleMillis(tree.objects()));
    String load = Machine.load().split(" ")[0];
    Contender.Measurement m;
    try {
      m = c.measure(ctx, tree);
    } catch (RuntimeException e) {
      log.error("{} on {} (repetition {}) failed: {}", c.id(), w.name(), rep, e.getMessage());
      m = Contender.Measurement.failed(e.getMessage());
    }
    long leftover = cluster.remainingItems(ns);
    if (!tree.kept().isEmpty()) { // the kept must all be there, and nothing else
      Set<String> left = cluster.remainingNames(ns);
      long keptGone = tree.kept().stream().filter(k -> !left.contains(k)).count();
      leftover = left.stream().filter(n -> !tree.kept().contains(n)).count();
      if (keptGone > 0) {
        m = m.withOutcome("failed: " + keptGone + " of " + tree.kept().size() + " kept dependents deleted");
      }
    }
    cluster.deleteNamespace(ns);
    log.info("{} {} {} ({} objects, created in {}): {}{}{}{}{}  [{} s elapsed]", rep == WARM_UP ? "warm-up" : "r" + rep,
        w.name(), c.id(), tree.objects(),
        Fmt.seconds(createSeconds), Fmt.seconds(m.seconds()),
        Double.isFinite(m.apiRequests()) && c.usesOperator() ? ", " + Fmt.count(m.apiRequests()) + " requests ("
            + m.requestsByVerb() + ")" : "",
        Double.isFinite(m.heapBytes()) ? ", heap " + Fmt.mib(m.heapBytes()) + " (peak " + Fmt.mib(m.peakHeapBytes())
            + ", after GC at most " + Fmt.mib(m.liveHeapBytes()) + ")" : "",
        Double.isFinite(m.cpuSeconds()) ? ", CPU " + Fmt.seconds(m.cpuSeconds()) : "",
        (tree.kept().isEmpty() ? "" : ", " + tree.kept().size() + " kept") + (leftover > 0 ? ", " + leftover
            + " objects LEFT" : "") + ("ok".equals(m.outcome()) ? "" : ", " + m.outcome()), session.elapsedSeconds());
    if (rep == WARM_UP) {
      return Map.of();
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("workload", w.name());
    row.put("shape", w.shape());
    row.put("fan_out", w.fanOut());
    row.put("depth", w.depth());
    row.put("objects", tree.objects());
    row.put("contender", c.id());
    row.put("repetition", rep);
    row.put("seconds", Fmt.plain(m.seconds(), 3));
    row.put("api_requests", Fmt.plain(m.apiRequests(), 0));
    row.put("requests_by_verb", m.requestsByVerb());
    row.put("heap_bytes", Fmt.plain(m.heapBytes(), 0));
    row.put("leftover", leftover);
    row.put("outcome", m.outcome());
    row.put("create_seconds", Fmt.plain(createSeconds, 3));
    row.put("load1", load);
    row.put("cpu_seconds", Fmt.plain(m.cpuSeconds(), 3));
    row.put("peak_heap_bytes", Fmt.plain(m.peakHeapBytes(), 0));
    row.put("live_heap_bytes", Fmt.plain(m.liveHeapBytes(), 0));
    return row;
  }

  private Path out() {
    return growth ? opts.growthCsv : opts.csv;
  }

  /** Whether --only lets contender c run workload w. */
  private boolean allowed(Contender c, Workload w) {
    String allowed = only.get(c.id());
    return allowed == null || List.of(allowed.split("/")).contains(w.name());
  }

  private List<Workload> workloads() {
    List<Workload> out = new ArrayList<>();
    for (Integer n : wide == null ? List.<Integer>of() : wide) {
      if (n != null && n > 0) {
        out.add(Workload.wide(n));
      }
    }
    for (String t : trees == null ? List.<String>of() : trees) {
      if (!t.isBlank() && !t.equalsIgnoreCase("none")) {
        out.add(Workload.tree(t));
      }
    }
    return out;
  }

  /** Namespaces an interrupted earlier comparison left behind. */
  private static void removeStaleNamespaces(Cluster cluster) {
    for (var ns : cluster.client.namespaces().withLabel(Cluster.LABEL).list().getItems()) {
      String run = ns.getMetadata().getLabels().get(Cluster.LABEL);
      if (run.startsWith("cmp-") && ns.getMetadata().getDeletionTimestamp() == null) {
        log.info("deleting namespace {} left by an earlier run", ns.getMetadata().getName());
        cluster.deleteNamespace(ns.getMetadata().getName());
      }
    }
  }

}
