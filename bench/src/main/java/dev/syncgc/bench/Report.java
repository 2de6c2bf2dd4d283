package dev.syncgc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The comparison as a console table, and docs/benchmarks.md from both result files. */
final class Report {
  private Report() {}

  /** The medians of a comparison, by workload and contender. */
  record Summary(Csv csv, List<String> workloads, Map<String, Integer> objects, List<String> contenders,
      Map<String, Map<String, Stats>> seconds, Map<String, Stats> requests, Map<String, Stats> heap,
      Map<String, String> verbs, int failed) {

    static Summary of(Csv csv) {
      Set<String> workloads = new LinkedHashSet<>();
      Set<String> contenders = new LinkedHashSet<>();
      Map<String, Integer> objects = new LinkedHashMap<>();
      Map<String, Map<String, List<Double>>> times = new LinkedHashMap<>();
      Map<String, List<Double>> requests = new LinkedHashMap<>();
      Map<String, List<Double>> heap = new LinkedHashMap<>();
      Map<String, String> verbs = new LinkedHashMap<>();
      int failed = 0;
      for (Map<String, String> row : csv.rows) {
        String w = row.get("workload");
        String c = row.get("contender");
        workloads.add(w);
        contenders.add(c);
        objects.put(w, (int) Csv.number(row, "objects"));
        double s = Csv.number(row, "seconds");
        if (!"ok".equals(row.get("outcome")) || Csv.number(row, "leftover") > 0) {
          failed++;
        }
        times.computeIfAbsent(w, k -> new LinkedHashMap<>()).computeIfAbsent(c, k -> new ArrayList<>()).add(s);
        if (c.equals("syncgc")) {
          requests.computeIfAbsent(w, k -> new ArrayList<>()).add(Csv.number(row, "api_requests"));
          heap.computeIfAbsent(w, k -> new ArrayList<>()).add(Csv.number(row, "heap_bytes"));
          verbs.put(w, row.get("requests_by_verb"));
        }
      }
      List<String> order = new ArrayList<>();
      for (String id : Contender.IDS) {
        if (contenders.contains(id)) {
          order.add(id);
        }
      }
      Map<String, Map<String, Stats>> seconds = new LinkedHashMap<>();
      times.forEach((w, byC) -> {
        Map<String, Stats> m = new LinkedHashMap<>();
        byC.forEach((c, v) -> m.put(c, Stats.of(v)));
        seconds.put(w, m);
      });
      Map<String, Stats> req = new LinkedHashMap<>();
      requests.forEach((w, v) -> req.put(w, Stats.of(v)));
      Map<String, Stats> hp = new LinkedHashMap<>();
      heap.forEach((w, v) -> hp.put(w, Stats.of(v)));
      return new Summary(csv, List.copyOf(workloads), objects, order, seconds, req, hp, verbs, failed);
    }

    Stats time(String workload, String contender) {
      return seconds.getOrDefault(workload, Map.of()).getOrDefault(contender, Stats.of(List.of()));
    }

    double median(String workload, String contender) {
      return time(workload, contender).median();
    }

    String title(String contender) {
      return csv.meta.getOrDefault("title_" + contender, contender);
    }

    double qps() {
      return Double.parseDouble(csv.meta.getOrDefault("qps", "200"));
    }

    int burst() {
      return Integer.parseInt(csv.meta.getOrDefault("burst", "400"));
    }
  }

  static String console(Csv csv) {
    Summary s = Summary.of(csv);
    List<List<String>> rows = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("workload", "objects"));
    s.contenders.forEach(c -> head.add(s.title(c)));
    head.addAll(List.of("syncgc/fg", "syncgc/fg-qps", "syncgc/floor", "unlimited syncgc/floor", "syncgc requests",
        "syncgc heap"));
    rows.add(head);
    for (String w : s.workloads) {
      List<String> r = new ArrayList<>(List.of(w, Fmt.count(s.objects.get(w))));
      s.contenders.forEach(c -> r.add(Fmt.stats(s.time(w, c))));
      double sy = s.median(w, "syncgc");
      r.add(Fmt.ratio(sy / s.median(w, "foreground")));
      r.add(Fmt.ratio(sy / s.median(w, "foreground-qps")));
      r.add(Fmt.ratio(sy / s.median(w, "floor")));
      r.add(Fmt.ratio(s.median(w, "syncgc-unlimited") / s.median(w, "floor-unlimited")));
      r.add(s.requests.containsKey(w) ? Fmt.count(s.requests.get(w).median()) : "–");
      r.add(s.heap.containsKey(w) ? Fmt.mib(s.heap.get(w).median()) : "–");
      rows.add(r);
    }
    int[] width = new int[head.size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder("Median (min-max) of " + s.csv.meta.getOrDefault("repetitions", "?")
        + " repetitions, seconds from the first DELETE until the root is gone:\n");
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        out.append(String.format(Locale.ROOT, i < 2 ? "%-" + width[i] + "s  " : "%" + width[i] + "s  ", r.get(i)));
      }
      out.append('\n');
    }
    if (s.failed > 0) {
      out.append(s.failed).append(" run(s) failed or left objects behind: see the CSV\n");
    }
    return out.toString();
  }

  /** docs/benchmarks.md from the three result files of opts (compare, growth, scale); a missing one is named. */
  static void writeMarkdown(Options opts) throws IOException {
    Path md = opts.docs;
    Optional<Csv> compare = Csv.read(opts.csv);
    Optional<Csv> growth = Csv.read(opts.growthCsv);
    Optional<Csv> scale = Csv.read(opts.scaleCsv);
    StringBuilder out = new StringBuilder();
    out.append("# Benchmarks\n\n");
    out.append("Written by the benchmark tool in `bench/` (`make bench`, `make bench-growth`, `make bench-scale`) from `")
        .append(opts.csv.getFileName()).append("`, `").append(opts.growthCsv.getFileName()).append("` and `")
        .append(opts.scaleCsv.getFileName()).append("`; each run rewrites it. The targets these "
            + "figures answer are at the end.\n\n");
    Summary s = compare.map(Summary::of).orElse(null);
    if (s != null) {
      compareSection(out, s, name(md, ".png"));
    } else {
      out.append("## Deletion time\n\nNot run yet: `make bench`.\n\n");
    }
    Summary g = growth.map(Summary::of).orElse(null);
    if (g != null) {
      GrowthSection.write(out, g, name(md, "-growth.png"));
    } else {
      out.append("## Cost as work grows\n\nNot run yet: `make bench-growth`.\n\n");
    }
    ScaleSection.Result scaleResult = scale.map(ScaleSection.Result::of).orElse(null);
    if (scaleResult != null) {
      ScaleSection.write(out, scaleResult);
    } else {
      out.append("## Scale\n\nNot run yet: `make bench-scale`.\n\n");
    }
    targets(out, s, scaleResult);
    GrowthSection.targets(out, g, scaleResult);
    out.append(KEPT).append("\n").append(Files.exists(md) ? kept(Files.readString(md, StandardCharsets.UTF_8)) : "");
    if (md.getParent() != null) {
      Files.createDirectories(md.getParent());
    }
    Files.writeString(md, out.toString(), StandardCharsets.UTF_8);
  }

  /** The line after which the report is written by hand (runs not redone by every bench): kept as it is. */
  static final String KEPT = "<!-- Written by hand below this line (figures of single runs, with their method):"
      + " the benchmark tool keeps it. -->";

  /** What follows the {@link #KEPT} line of a report, or nothing. */
  static String kept(String report) {
    int at = report.indexOf(KEPT);
    int lineEnd = at < 0 ? -1 : report.indexOf('\n', at);
    return lineEnd < 0 ? "" : report.substring(lineEnd + 1);
  }

  private static String name(Path md, String suffix) {
    return md.getFileName().toString().replaceAll("\\.md$", "") + suffix;
  }

  static void runLine(StringBuilder out, Map<String, String> meta) {
    if (!meta.getOrDefault("note", "").isBlank()) {
      out.append("> **").append(meta.get("note")).append("**\n\n");
    }
    out.append("Run of ").append(meta.getOrDefault("date", "?")).append(" on ")
        .append(meta.getOrDefault("cores", "?")).append(" cores (").append(meta.getOrDefault("cpu", "?"))
        .append("), ").append(meta.getOrDefault("memory", "?")).append(" of memory; load average (1, 5, 15 min) ")
        .append(meta.getOrDefault("load_start", "?")).append(" at the start, ")
        .append(meta.getOrDefault("load_end", "?")).append(" at the end; it took ")
        .append(meta.getOrDefault("duration", "?")).append(". Kubernetes ")
        .append(meta.getOrDefault("kubernetes", "?")).append(" (the local control plane of `e2e/cluster.sh`), syncgc ")
        .append(meta.getOrDefault("syncgc", "?")).append(", Java ").append(meta.getOrDefault("java", "?"))
        .append(".\n\n");
  }

  private static void compareSection(StringBuilder out, Summary s, String png) {
    String qps = Fmt.num(s.qps()) + "/" + s.burst();
    out.append("## Deletion time: syncgc, the built-in foreground deletion, and the floor\n\n");
    runLine(out, s.csv.meta);
    out.append("**Method.** Every run creates a fresh tree of `BenchItem` custom resources (a namespaced CRD the "
        + "tool installs, `bench.syncgc.dev`) in a fresh namespace, level by level with parallel creates; every "
        + "dependent names its owner with `blockOwnerDeletion: true`. After a pause (")
        .append(s.csv.meta.getOrDefault("settle", "1 s + 0.5 ms per object"))
        .append("; for syncgc also until the root carries syncgc's finalizer and syncgc's graph holds the tree) "
        + "a watch on the root starts, and the time runs from the first DELETE until the watch reports the root "
        + "gone. **syncgc**: the root is annotated `syncgc.dev/propagation: Synchronous`; the operator jar runs "
        + "with its default settings (32 workers, client QPS 200, burst 400) and gets one plain DELETE of the "
        + "root. **foreground**: one DELETE of the root with `propagationPolicy: Foreground` (what `kubectl delete "
        + "--cascade=foreground` sends), done by kube-controller-manager's garbage collector at its default "
        + "`--kube-api-qps/--kube-api-burst` (")
        .append(Kcm.DEFAULT_QPS).append("), and again with them raised to syncgc's ").append(qps)
        .append(" (`e2e/cluster.sh restart-kcm`). **floor**: the tool deletes every object itself, leaves first "
        + "(level by level from the deepest, each level's DELETEs in parallel, ")
        .append(s.csv.meta.getOrDefault("floor_parallelism", "64"))
        .append(" in flight), the root last, through a token bucket of ").append(qps)
        .append(" and with the DeleteOptions syncgc sends (uid precondition, background propagation). "
        + "Each repetition runs every contender on every workload; the operator runs only during syncgc's runs "
        + "(it would ignore the other objects, which carry no annotation), and kube-controller-manager is "
        + "restarted between its two settings and probed until its collector works. Each time the operator "
        + "starts it first runs untimed warm-up cascades (")
        .append(s.csv.meta.getOrDefault("warm_up", "none"))
        .append("), so that the timed runs see a long-running operator with its code compiled, as "
        + "kube-controller-manager and the floor (in the bench JVM) are; the first cascade after a start costs "
        + "about twice the CPU (the JIT compiler). Figures: median of ")
        .append(s.csv.meta.getOrDefault("repetitions", "?"))
        .append(" repetitions, min–max in brackets. syncgc's API requests are the difference of "
        + "`syncgc_api_requests_total` before and after the run; its heap is `jvm_memory_used_bytes{area=\"heap\"}` "
        + "after `jcmd GC.run`, at the end of the run.\n\n");

    out.append("| workload | objects |");
    s.contenders.forEach(c -> out.append(' ').append(s.title(c)).append(" |"));
    out.append("\n|---|---:|");
    s.contenders.forEach(c -> out.append("---:|"));
    out.append('\n');
    for (String w : s.workloads) {
      out.append("| ").append(w).append(" | ").append(Fmt.count(s.objects.get(w))).append(" |");
      s.contenders.forEach(c -> out.append(' ').append(Fmt.stats(s.time(w, c))).append(" |"));
      out.append('\n');
    }
    out.append('\n');
    out.append("| workload | syncgc / foreground | syncgc / foreground at ").append(qps)
        .append(" | syncgc / floor | syncgc / floor, both with no client limit | syncgc API requests (median; by verb, one run) | lower bound of syncgc's "
            + "rate limit: (SPEC's minimum requests − burst) / QPS | syncgc requests per second of the run | syncgc heap after the run |"
            + "\n|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
    for (String w : s.workloads) {
      double sy = s.median(w, "syncgc");
      Stats req = s.requests.get(w);
      double bound = Math.max(0, Workload.named(w).minimumSyncgcRequests() - s.burst()) / s.qps();
      out.append("| ").append(w).append(" | ").append(ratioAndSpeedup(sy, s.median(w, "foreground")))
          .append(" | ").append(ratioAndSpeedup(sy, s.median(w, "foreground-qps")))
          .append(" | ").append(Fmt.ratio(sy / s.median(w, "floor")))
          .append(" | ").append(Fmt.ratio(s.median(w, "syncgc-unlimited") / s.median(w, "floor-unlimited")))
          .append(" | ").append(req == null ? "–" : Fmt.count(req.median()) + " ("
              + s.verbs.getOrDefault(w, "").replace(";", ", ") + ")")
          .append(" | ").append(Fmt.seconds(bound))
          .append(" | ").append(req == null ? "–" : Fmt.count(req.median() / sy))
          .append(" | ").append(s.heap.containsKey(w) ? Fmt.mib(s.heap.get(w).median()) : "–").append(" |\n");
    }
    out.append('\n');
    if (s.failed > 0) {
      out.append("**").append(s.failed).append(" run(s) failed or left objects behind** (see `outcome` and "
          + "`leftover` in the CSV); they are left out of the medians.\n\n");
    }
    out.append("![Deletion time against the number of objects, per contender](").append(png).append(")\n\n");
    out.append("`").append(png).append("` is drawn by `bench/plot.py` from the CSV (median, bars from min to max; "
        + "trees joined by lines, wide workloads as squares).\n\n");
  }

  private static String ratioAndSpeedup(double syncgc, double other) {
    double r = syncgc / other;
    if (!Double.isFinite(r)) {
      return "–";
    }
    double speedup = other / syncgc;
    return speedup >= 1
        ? Fmt.ratio(r) + " (" + String.format(Locale.ROOT, speedup >= 10 ? "%.0f" : "%.1f", speedup) + "× faster)"
        : Fmt.ratio(r) + " (" + String.format(Locale.ROOT, "%.1f", r) + "× slower)";
  }

  private static void targets(StringBuilder out, Summary s, ScaleSection.Result r) {
    out.append("## Targets of the comparison\n\n| target | figures | met? |\n|---|---|---|\n");
    if (s != null) {
      target(out, "syncgc at least 10× faster than the built-in foreground deletion at its defaults", s,
          "foreground", (sy, other) -> other / sy >= 10, (sy, other) -> String.format(Locale.ROOT, "%.1f×", other / sy));
      target(out, "syncgc faster than the foreground deletion at equal QPS (" + Fmt.num(s.qps()) + "/" + s.burst()
          + ")", s, "foreground-qps", (sy, other) -> other / sy > 1,
          (sy, other) -> String.format(Locale.ROOT, "%.1f×", other / sy));
      target(out, "syncgc within 1.5× of the floor on every workload", s, "floor",
          (sy, other) -> sy / other <= 1.5, (sy, other) -> String.format(Locale.ROOT, "%.2f", sy / other));
      List<String> missing = new ArrayList<>();
      for (String w : List.of("wide-2000", "tree-10x3", "tree-10x4")) {
        if (!s.workloads.contains(w)) {
          missing.add(w);
        }
      }
      if (!missing.isEmpty()) {
        out.append("| the target's workloads (wide-2000, tree-10x3, tree-10x4) | not in this run: ")
            .append(String.join(", ", missing)).append(" | – |\n");
      }
    } else {
      out.append("| deletion-time targets | not measured (`make bench`) | – |\n");
    }
    if (r != null) {
      Stats perObject = r.get("heap_per_object_bytes");
      out.append("| under 2 KiB of heap per tracked object | ")
          .append(perObject.empty() ? "–" : String.format(Locale.ROOT, "%.0f B", perObject.median()))
          .append(" | ").append(perObject.empty() ? "–" : perObject.median() < 2048 ? "yes" : "**no**")
          .append(" |\n");
      Stats ready = r.get("ready_seconds");
      double objects = r.get("objects").median();
      out.append("| graph rebuild of 100,000 objects in under 20 s | ").append(Fmt.seconds(ready.median()))
          .append(" for ").append(Fmt.count(objects)).append(" objects | ")
          .append(ready.empty() ? "–" : objects < 100_000 ? "not measured at 100,000"
              : ready.median() < 20 ? "yes" : "**no**").append(" |\n");
    } else {
      out.append("| heap per object, graph rebuild | not measured (`make bench-scale`) | – |\n");
    }
    out.append('\n');
  }

  private interface Check {
    boolean ok(double syncgc, double other);
  }

  private interface Figure {
    String of(double syncgc, double other);
  }

  private static void target(StringBuilder out, String label, Summary s, String other, Check check, Figure figure) {
    List<String> figures = new ArrayList<>();
    boolean all = true;
    boolean any = false;
    for (String w : s.workloads) {
      double sy = s.median(w, "syncgc");
      double o = s.median(w, other);
      if (Double.isFinite(sy) && Double.isFinite(o)) {
        any = true;
        boolean ok = check.ok(sy, o);
        all &= ok;
        figures.add(w + ": " + figure.of(sy, o) + (ok ? "" : " (missed)"));
      }
    }
    out.append("| ").append(label).append(" | ").append(any ? String.join("; ", figures) : "not measured")
        .append(" | ").append(!any ? "–" : all ? "yes" : "**no**").append(" |\n");
  }
}
