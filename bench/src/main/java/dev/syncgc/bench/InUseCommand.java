package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * SPEC "In use" at cascade scale: the same cascade (many owners annotated Synchronous, each with dependents,
 * every owner deleted at once) with and without usage edges between siblings ({@link SiblingUses}: a chain, or a
 * star with {@code --shape star}), in one operator process, the variants interleaved in alternating order; and
 * ({@code --variants plain,waves,uses}) the same order given by deletion waves instead of uses, which tells the cost
 * of the ordering itself (the same steps one after another) from that of the usage edges.
 */
@Command(name = "in-use", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Times a cascade of many owners with and without syncgc.dev/uses edges between siblings, "
        + "interleaved; prints median and min-max and the ratio of the two.")
final class InUseCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(InUseCommand.class);
  static final List<String> HEADER = List.of("variant", "repetition", "owners", "dependents", "objects", "seconds", "owner_median_seconds", "owner_p90_seconds",
      "cpu_seconds", "api_requests", "requests_by_verb", "peak_heap_bytes", "live_heap_bytes", "heap_bytes",
      "create_seconds", "drain_seconds", "load1", "order_violations", "invalid_annotations", "events_by_reason", "leftover", "outcome");
  static final String PLAIN = "plain";
  static final String USES = "uses";
  /** The order the uses give, by deletion waves instead: what ordering alone costs. */
  static final String WAVES = "waves";
  private static final int GRAPH_SLACK = 10;

  @Mixin Options opts;

  @Option(names = "--owners", defaultValue = "1000", description = "Owners deleted at once (default: ${DEFAULT-VALUE}).")
  int owners;

  @Option(names = "--dependents", defaultValue = "10",
      description = "Dependents of each owner (default: ${DEFAULT-VALUE}).")
  int dependents;

  @Option(names = "--repetitions", defaultValue = "3",
      description = "Repetitions; each runs both variants, in alternating order (default: ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(names = "--shape", defaultValue = "CHAIN", converter = ShapeConverter.class,
      description = "Usage edges between siblings: chain (dependent I uses I+1: one at a time, the worst case) or star"
          + " (every dependent uses dependent 0) (default: chain).")
  SiblingUses.Shape shape;

  static final class ShapeConverter implements picocli.CommandLine.ITypeConverter<SiblingUses.Shape> {
    @Override
    public SiblingUses.Shape convert(String value) {
      return SiblingUses.Shape.valueOf(value.toUpperCase(java.util.Locale.ROOT));
    }
  }

  @Option(names = "--variants", split = ",", defaultValue = "plain,uses",
      description = "The variants each repetition runs: plain (no edges), uses (edges of --shape), waves (the order"
          + " the uses give, by deletion waves), alternating their order (default: ${DEFAULT-VALUE}); one alone, e.g."
          + " to profile it.")
  List<String> variants;

  @Option(names = "--warm-up", split = ",", defaultValue = "plain,uses",
      description = "Untimed cascades of the same size the operator runs first (its JIT at work), by variant; "
          + "'none' for none (default: ${DEFAULT-VALUE}).")
  List<String> warmUp;

  @Option(names = "--operator-arg", description = "An extra flag for the operator, repeatable, e.g. "
      + "--operator-arg=--kube-api-qps --operator-arg=0.")
  List<String> operatorArgs = new ArrayList<>();

  @Option(names = "--settle-ms", defaultValue = "1000",
      description = "Pause between the operator having seen the objects and the DELETEs, plus half a millisecond "
          + "per object (default: ${DEFAULT-VALUE}).")
  long settleMs;

  @Option(names = "--run-timeout", defaultValue = "1800",
      description = "Seconds a cascade may take before it counts as failed (default: ${DEFAULT-VALUE}).")
  long runTimeoutSeconds;

  @Option(names = "--in-use-csv", defaultValue = "bench/target/in-use.csv",
      description = "Every run, one row each (default: ${DEFAULT-VALUE}); docs/benchmarks.md is not rewritten.")
  Path out;

  @Option(names = "--summary-of", description = "Only print the summary of an earlier run's CSV; nothing is run.")
  Path summaryOf;

  private final Csv csv = new Csv(HEADER);
  private final long begun = System.nanoTime();
  private final AtomicInteger attempts = new AtomicInteger();
  private String run;

  @Override
  public Integer call() throws Exception {
    if (summaryOf != null) {
      System.out.println(summary(Csv.read(summaryOf).orElseThrow(() -> new IllegalArgumentException(
          "no results in " + summaryOf))));
      return 0;
    }
    if (owners < 1 || dependents < 2 || repetitions < 1) {
      throw new IllegalArgumentException("give --owners >= 1, --dependents >= 2 (an edge needs two) and "
          + "--repetitions >= 1");
    }
    run = "inuse-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMddHHmmss"));
    try (Cluster cluster = Cluster.connect(opts.clusterScript);
        Parallel pool = new Parallel(opts.createParallelism, "create");
        SyncgcProcess syncgc = new SyncgcProcess(opts.operatorJar, cluster.kubeconfig,
            opts.logs.resolve("operator-in-use.log"), opts.operatorHeap, opts.operatorJvmOptions)) {
      Machine.describe(csv.meta, cluster);
      csv.meta.put("load_start", Machine.load());
      csv.meta.put("owners", Integer.toString(owners));
      csv.meta.put("dependents", Integer.toString(dependents));
      csv.meta.put("repetitions", Integer.toString(repetitions));
      csv.meta.put("shape", shape.name().toLowerCase(Locale.ROOT));
      csv.meta.put("variants", String.join(" ", variants(variants)));
      csv.meta.put("warm_up", String.join(" ", variants(warmUp)));
      csv.meta.put("operator_args", String.join(" ", operatorArgs));
      csv.meta.put("operator_heap", opts.operatorHeap);
      csv.meta.put("settle", settleMs + " ms + 0.5 ms per object");
      csv.meta.put("note", opts.note);
      BenchCrd.install(cluster.client, opts.widgetCrd);
      for (var ns : cluster.client.namespaces().withLabel(Cluster.LABEL).list().getItems()) {
        if (ns.getMetadata().getLabels().get(Cluster.LABEL).startsWith("inuse-")) {
          log.info("deleting namespace {} left by an earlier run", ns.getMetadata().getName());
          cluster.deleteNamespace(ns.getMetadata().getName());
        }
      }
      log.info("in-use benchmark {}: {} owners x {} dependents, {} repetitions of {}; load average {}", run,
          owners, dependents, repetitions, String.join(", ", variants(variants)), Machine.load());
      syncgc.start(operatorArgs);
      syncgc.awaitReady(Duration.ofMinutes(5));
      try {
        for (String variant : variants(warmUp)) {
          runOne(cluster, pool, syncgc, variant, 0);
        }
        for (int rep = 1; rep <= repetitions; rep++) {
          List<String> order = new ArrayList<>(variants(variants));
          if (rep % 2 == 0) {
            java.util.Collections.reverse(order);
          }
          for (String variant : order) {
            csv.add(runOne(cluster, pool, syncgc, variant, rep));
          }
          csv.meta.put("load_end", Machine.load());
          csv.meta.put("duration", Math.round((System.nanoTime() - begun) / 1e9) + " s");
          csv.write(out);
        }
      } finally {
        syncgc.stop();
      }
    }
    System.out.println();
    System.out.println(summary(csv));
    log.info("wrote {}", out);
    return 0;
  }

  private static List<String> variants(List<String> given) {
    List<String> out = new ArrayList<>();
    for (String w : given) {
      String v = w.trim();
      if (v.isEmpty() || v.equals("none")) {
        continue;
      }
      if (!v.equals(PLAIN) && !v.equals(USES) && !v.equals(WAVES)) {
        throw new IllegalArgumentException("variants are plain, uses, waves or none, not '" + v + "'");
      }
      out.add(v);
    }
    return out;
  }

  private Map<String, Object> runOne(Cluster cluster, Parallel pool, SyncgcProcess syncgc, String variant, int rep)
      throws Exception {
    boolean edges = variant.equals(USES);
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
          variant.equals(WAVES) ? SiblingUses.wave(shape, i, dependents)
              : SiblingUses.annotations(shape, edges, k, i, dependents), Map.of(), i));
    });
    double createSeconds = (System.nanoTime() - t0) / 1e9;
    awaitOptedIn(cluster, ns);
    awaitGraph(syncgc, graphBefore + objects);
    Thread.sleep(settleMs + objects / 2);

    String load = Machine.load().split(" ")[0];
    Map<String, Integer> order = new ConcurrentHashMap<>();
    List<Double> ownerSeconds = java.util.Collections.synchronizedList(new ArrayList<>());
    double seconds;
    String before = syncgc.metrics();
    long gcMark = syncgc.gcMark();
    String outcome = "ok";
    try (DeletionWatch watch = new DeletionWatch(cluster, ns, objects, order, ownerSeconds)) {
      watch.awaitListed();
      long start = System.nanoTime();
      watch.start(start);
      pool.map(owners, k -> cluster.api.delete(ns, SiblingUses.owner(k), ownerUids.get(k), "Background"));
      seconds = watch.awaitAllGone(start, Duration.ofSeconds(runTimeoutSeconds));
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
    double cpu = delta(before, after, "process_cpu_seconds_total", null);
    double requests = delta(before, after, "syncgc_api_requests_total", null);
    double invalid = delta(before, after, "syncgc_invalid_annotations_total", null);
    double timedOut = delta(before, after, "syncgc_deletions_finished_total", "outcome=\"timed_out\"");
    if (timedOut > 0 && outcome.equals("ok")) {
      outcome = "timed_out";
    }
    String byVerb = byVerb(before, after);
    GcLog.Peak peak = syncgc.gcSince(gcMark);
    double heap = syncgc.heapAfterGc();
    long leftover = cluster.remainingItems(ns);
    int violations = SiblingUses.violations(shape, order, owners, dependents);
    String events = eventsByReason(cluster, ns);
    deleteAndWait(cluster, ns);
    List<Double> owned = new ArrayList<>(ownerSeconds);
    java.util.Collections.sort(owned);
    double ownerMedian = Stats.of(owned).median();
    double ownerP90 = owned.isEmpty() ? Double.NaN : owned.get(Math.min(owned.size() - 1, (int) (owned.size() * 0.9)));
    log.info("{} {} ({} objects, created in {}): {} (owners gone: median {}, p90 {}), CPU {}, {} requests ({}), heap peak {} (after GC at most {}), "
            + "{} of {} usage pairs deleted used-first, Events {}, quiet after {}{}{}  [{} s elapsed]",
        rep == 0 ? "warm-up" : "r" + rep, variant, Fmt.count(objects), Fmt.seconds(createSeconds),
        Fmt.seconds(seconds), Fmt.seconds(ownerMedian), Fmt.seconds(ownerP90), Fmt.seconds(cpu), Fmt.count(requests), byVerb, Fmt.mib(peak.beforeBytes()),
        Fmt.mib(peak.afterBytes()), violations, owners * SiblingUses.pairs(dependents), events, Fmt.seconds(drainSeconds),
        invalid > 0 ? ", " + Math.round(invalid) + " InvalidAnnotation" : "",
        leftover > 0 ? ", " + leftover + " objects LEFT" : "", Math.round((System.nanoTime() - begun) / 1e9));
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

  private static double delta(String before, String after, String metric, String filter) {
    double a = Prom.sum(after, metric, filter);
    double b = Prom.sum(before, metric, filter);
    return Double.isNaN(a) ? Double.NaN : a - (Double.isNaN(b) ? 0 : b);
  }

  private static String byVerb(String before, String after) {
    Map<String, Double> verbsBefore = Prom.byLabel(before, "syncgc_api_requests_total", "verb");
    Map<String, Double> verbs = new TreeMap<>(Prom.byLabel(after, "syncgc_api_requests_total", "verb"));
    verbs.replaceAll((verb, n) -> n - verbsBefore.getOrDefault(verb, 0.0));
    verbs.values().removeIf(n -> n == 0);
    return verbs.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(e -> e.getKey() + "=" + Math.round(e.getValue())).collect(Collectors.joining(";"));
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

  /** The namespace's Events (syncgc's), counted by reason: reason=count;... */
  private static String eventsByReason(Cluster cluster, String ns) {
    Map<String, Long> counts = cluster.client.v1().events().inNamespace(ns).list().getItems().stream()
        .collect(Collectors.groupingBy(e -> String.valueOf(e.getReason()), TreeMap::new,
            Collectors.summingLong(e -> e.getCount() == null ? 1 : e.getCount())));
    return counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
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

  /** Deletes the (empty) namespace and waits until it is gone, so that its cleanup does not overlap the next run. */
  private static void deleteAndWait(Cluster cluster, String ns) throws InterruptedException {
    cluster.deleteNamespace(ns);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (cluster.client.namespaces().withName(ns).get() != null && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
  }

  /**
   * A watch of the namespace's bench items from before the first DELETE: the order of their DELETED events, and
   * when the last arrived. If the watch were lost, a poll of what is left still ends the run (and says so).
   */
  private static final class DeletionWatch implements AutoCloseable {
    private final Cluster cluster;
    private final String ns;
    private final int objects;
    private final CountDownLatch listed;
    private final CountDownLatch gone;
    private final AtomicInteger sequence = new AtomicInteger();
    private final AtomicLong lastNanos = new AtomicLong();
    private volatile long startNanos;
    private final Watch watch;

    /** @param ownerSeconds gets, for each owner, the seconds from {@link #start} until its DELETED event */
    DeletionWatch(Cluster cluster, String ns, int objects, Map<String, Integer> order, List<Double> ownerSeconds) {
      this.cluster = cluster;
      this.ns = ns;
      this.objects = objects;
      this.listed = new CountDownLatch(objects);
      this.gone = new CountDownLatch(objects);
      // no resourceVersion: the watch starts with an ADDED event per existing object
      this.watch = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns)
          .watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, GenericKubernetesResource r) {
              long now = System.nanoTime();
              if (action == Action.ADDED) {
                listed.countDown();
              } else if (action == Action.DELETED
                  && order.putIfAbsent(r.getMetadata().getName(), sequence.getAndIncrement()) == null) {
                lastNanos.set(now);
                if (!r.getMetadata().getName().contains("-d-")) {
                  ownerSeconds.add((now - startNanos) / 1e9);
                }
                gone.countDown();
              }
            }

            @Override
            public void onClose(WatcherException cause) {
              if (gone.getCount() > 0) {
                log.warn("watch of {} closed: {}", ns, cause == null ? "" : cause.getMessage());
              }
            }
          });
    }

    void start(long nanos) {
      startNanos = nanos;
    }

    void awaitListed() throws InterruptedException {
      if (!listed.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("watch of " + ns + " delivered " + (objects - listed.getCount()) + " of "
            + objects + " objects in 120 s");
      }
    }

    /** Seconds from start until the last object's DELETED event. */
    double awaitAllGone(long start, Duration timeout) throws InterruptedException {
      long deadline = start + timeout.toNanos();
      while (!gone.await(5, TimeUnit.SECONDS)) {
        if (cluster.remainingItems(ns) == 0 && gone.getCount() > 0) {
          log.warn("{} is empty but its watch saw {} of {} deletions; time taken from a poll (±5 s)", ns,
              objects - gone.getCount(), objects);
          return (System.nanoTime() - start) / 1e9;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(ns + " still holds " + cluster.remainingItems(ns) + " bench items after "
              + timeout.toSeconds() + " s");
        }
      }
      return (lastNanos.get() - start) / 1e9;
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  /** Median (min-max) by variant, the ratio with edges to without, and a Markdown table of every run. */
  static String summary(Csv csv) {
    Map<String, Map<String, List<Double>>> by = new LinkedHashMap<>();
    Map<Integer, Map<String, Double>> paired = new TreeMap<>();
    Map<Integer, Map<String, Double>> pairedCpu = new TreeMap<>();
    for (Map<String, String> row : csv.rows) {
      String v = row.get("variant");
      Map<String, List<Double>> m = by.computeIfAbsent(v, k -> new LinkedHashMap<>());
      for (String f : List.of("seconds", "owner_median_seconds", "cpu_seconds", "api_requests", "peak_heap_bytes", "live_heap_bytes",
          "heap_bytes")) {
        m.computeIfAbsent(f, k -> new ArrayList<>()).add(Csv.number(row, f));
      }
      paired.computeIfAbsent((int) Csv.number(row, "repetition"), k -> new LinkedHashMap<>())
          .put(v, Csv.number(row, "seconds"));
      pairedCpu.computeIfAbsent((int) Csv.number(row, "repetition"), k -> new LinkedHashMap<>())
          .put(v, Csv.number(row, "cpu_seconds"));
    }
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%s owners x %s dependents, usage edges: %s, %s repetitions, median (min-max):%n",
        csv.meta.get("owners"), csv.meta.get("dependents"), csv.meta.getOrDefault("shape", "chain"),
        csv.meta.get("repetitions")));
    out.append("| variant | seconds until all gone | owner gone, median of owners | operator CPU s | API requests | peak heap | live heap "
        + "(max after GC) | heap after full GC |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (var e : by.entrySet()) {
      Map<String, List<Double>> m = e.getValue();
      out.append("| ").append(e.getKey()).append(" | ").append(Fmt.stats(Stats.of(m.get("seconds"))))
          .append(" | ").append(Fmt.stats(Stats.of(m.get("owner_median_seconds"))))
          .append(" | ").append(Fmt.stats(Stats.of(m.get("cpu_seconds"))))
          .append(" | ").append(Fmt.count(Stats.of(m.get("api_requests")).median()))
          .append(" | ").append(mibs(Stats.of(m.get("peak_heap_bytes"))))
          .append(" | ").append(mibs(Stats.of(m.get("live_heap_bytes"))))
          .append(" | ").append(mibs(Stats.of(m.get("heap_bytes")))).append(" |\n");
    }
    for (String[] pair : List.of(new String[] {USES, PLAIN}, new String[] {WAVES, PLAIN}, new String[] {USES, WAVES})) {
      if (!by.containsKey(pair[0]) || !by.containsKey(pair[1])) {
        continue;
      }
      double t = Stats.of(by.get(pair[0]).get("seconds")).median() / Stats.of(by.get(pair[1]).get("seconds")).median();
      double c = Stats.of(by.get(pair[0]).get("cpu_seconds")).median()
          / Stats.of(by.get(pair[1]).get("cpu_seconds")).median();
      Stats r = pairedRatios(paired, pair[0], pair[1]);
      Stats rc = pairedRatios(pairedCpu, pair[0], pair[1]);
      out.append(String.format(Locale.ROOT, "%n%s / %s: time %s (medians), %s (median of the %d paired "
              + "repetitions; %s-%s); CPU %s (medians), %s (paired; %s-%s)%n", pair[0], pair[1], Fmt.ratio(t),
          Fmt.ratio(r.median()), r.count(), Fmt.ratio(r.min()), Fmt.ratio(r.max()), Fmt.ratio(c),
          Fmt.ratio(rc.median()), Fmt.ratio(rc.min()), Fmt.ratio(rc.max())));
    }
    out.append("\n| repetition | variant | seconds | CPU s | requests (by verb) | peak heap | usage pairs deleted "
        + "used-first | load1 |\n|---:|---|---:|---:|---|---:|---:|---:|\n");
    for (Map<String, String> row : csv.rows) {
      out.append("| ").append(row.get("repetition")).append(" | ").append(row.get("variant"))
          .append(" | ").append(Fmt.seconds(Csv.number(row, "seconds")))
          .append(" | ").append(Fmt.seconds(Csv.number(row, "cpu_seconds")))
          .append(" | ").append(Fmt.count(Csv.number(row, "api_requests"))).append(" (")
          .append(row.get("requests_by_verb").replace(";", ", ").replace("=", " ")).append(")")
          .append(" | ").append(Fmt.mib(Csv.number(row, "peak_heap_bytes")))
          .append(" | ").append(row.get("order_violations"))
          .append(" | ").append(row.get("load1")).append(" |\n");
    }
    return out.toString();
  }

  private static Stats pairedRatios(Map<Integer, Map<String, Double>> paired, String over, String under) {
    List<Double> ratios = new ArrayList<>();
    paired.values().forEach(p -> {
      if (p.containsKey(over) && p.containsKey(under)) {
        ratios.add(p.get(over) / p.get(under));
      }
    });
    return Stats.of(ratios);
  }

  private static String mibs(Stats s) {
    if (s.empty()) {
      return "–";
    }
    return s.count() == 1 ? Fmt.mib(s.median())
        : Fmt.mib(s.median()) + " (" + Fmt.mib(s.min()).replace(" MiB", "") + "–" + Fmt.mib(s.max()) + ")";
  }
}
