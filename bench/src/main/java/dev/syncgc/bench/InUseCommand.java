package dev.syncgc.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
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

  @Mixin Options opts;
  @Mixin RunOptions runs;

  @Option(names = "--owners", defaultValue = "1000", description = "Owners deleted at once (default: ${DEFAULT-VALUE}).")
  int owners;

  @Option(names = "--dependents", defaultValue = "10",
      description = "Dependents of each owner (default: ${DEFAULT-VALUE}).")
  int dependents;

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

  @Option(names = "--in-use-csv", defaultValue = "bench/target/in-use.csv",
      description = "Every run, one row each (default: ${DEFAULT-VALUE}); docs/benchmarks.md is not rewritten.")
  Path out;

  @Option(names = "--summary-of", description = "Only print the summary of an earlier run's CSV; nothing is run.")
  Path summaryOf;

  private final Csv csv = new Csv(HEADER);

  @Override
  public Integer call() throws Exception {
    if (summaryOf != null) {
      System.out.println(InUseSummary.summary(Csv.read(summaryOf).orElseThrow(() -> new IllegalArgumentException(
          "no results in " + summaryOf))));
      return 0;
    }
    if (owners < 1 || dependents < 2 || runs.repetitions < 1) {
      throw new IllegalArgumentException("give --owners >= 1, --dependents >= 2 (an edge needs two) and "
          + "--repetitions >= 1");
    }
    String run = "inuse-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMddHHmmss"));
    try (Session session = Session.open(opts, "in-use", csv)) {
      Cluster cluster = session.cluster;
      SyncgcProcess syncgc = session.syncgc;
      InUseCascade cascade = new InUseCascade(session, runs, run, owners, dependents, shape);
      csv.meta.put("owners", Integer.toString(owners));
      csv.meta.put("dependents", Integer.toString(dependents));
      csv.meta.put("repetitions", Integer.toString(runs.repetitions));
      csv.meta.put("shape", shape.name().toLowerCase(Locale.ROOT));
      csv.meta.put("variants", String.join(" ", variants(variants)));
      csv.meta.put("warm_up", String.join(" ", variants(warmUp)));
      csv.meta.put("operator_args", String.join(" ", operatorArgs));
      csv.meta.put("operator_heap", opts.operatorHeap);
      csv.meta.put("settle", runs.settleNote());
      csv.meta.put("note", opts.note);
      for (var ns : cluster.client.namespaces().withLabel(Cluster.LABEL).list().getItems()) {
        if (ns.getMetadata().getLabels().get(Cluster.LABEL).startsWith("inuse-")) {
          log.info("deleting namespace {} left by an earlier run", ns.getMetadata().getName());
          cluster.deleteNamespace(ns.getMetadata().getName());
        }
      }
      log.info("in-use benchmark {}: {} owners x {} dependents, {} repetitions of {}; load average {}", run,
          owners, dependents, runs.repetitions, String.join(", ", variants(variants)), Machine.load());
      syncgc.start(operatorArgs);
      syncgc.awaitReady(Duration.ofMinutes(5));
      try {
        for (String variant : variants(warmUp)) {
          cascade.runOne(variant, 0);
        }
        for (int rep = 1; rep <= runs.repetitions; rep++) {
          List<String> order = new ArrayList<>(variants(variants));
          if (rep % 2 == 0) {
            java.util.Collections.reverse(order);
          }
          for (String variant : order) {
            csv.add(cascade.runOne(variant, rep));
          }
          session.stamp();
          csv.write(out);
        }
      } finally {
        syncgc.stop();
      }
    }
    System.out.println();
    System.out.println(InUseSummary.summary(csv));
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
}
