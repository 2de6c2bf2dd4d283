package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's section on cost as work grows: every contender from about 1,000 to 100,000
 * objects, with requests, CPU and heap per object, and the growth targets.
 */
final class GrowthSection {
  private GrowthSection() {}

  static void write(StringBuilder out, Report.Summary s, String png) {
    Map<String, String> meta = s.csv().meta;
    String qps = Fmt.num(s.qps()) + "/" + s.burst();
    out.append("## Cost as work grows: ").append(Fmt.count(minObjects(s))).append(" to ")
        .append(Fmt.count(maxObjects(s))).append(" objects\n\n");
    Report.runLine(out, meta);
    out.append("**Method.** As above (fresh tree per run, time from the first DELETE until a watch reports the "
        + "root gone), at sizes from about 1,000 to 100,000 objects: wide (one owner, N dependents) and trees of "
        + "fan-out 10. The operator runs with `-Xmx").append(meta.getOrDefault("operator_heap", "?"))
        .append("`: every syncgc run did its work inside that heap. **Requests** are syncgc's "
        + "`syncgc_api_requests_total`, kube-controller-manager's `rest_client_requests_total` (the whole "
        + "process), the floor's DELETEs. **CPU** is `process_cpu_seconds_total` of the operator, or of "
        + "kube-controller-manager as a whole, from before the first DELETE to one second after the root is "
        + "gone. **Peak heap** is the largest heap occupancy before a collection during the run, **after GC** the "
        + "largest occupancy right after one (a young collection leaves the old generation as it is, dead objects "
        + "included, so this is an upper bound of the live data), both from the operator's GC log (`-Xlog:gc`), "
        + "so nothing samples the process. ")
        .append(onlyNote(meta)).append(" Repetitions: ").append(meta.getOrDefault("repetitions", "?"))
        .append(" (median, min–max where more than one).\n\n");

    out.append("| workload | objects |");
    s.contenders().forEach(c -> out.append(' ').append(s.title(c)).append(" |"));
    out.append("\n|---|---:|");
    s.contenders().forEach(c -> out.append("---:|"));
    out.append('\n');
    for (String w : s.workloads()) {
      out.append("| ").append(w).append(" | ").append(Fmt.count(s.objects().get(w))).append(" |");
      s.contenders().forEach(c -> out.append(' ').append(Fmt.stats(s.time(w, c))).append(" |"));
      out.append('\n');
    }
    out.append("\n![Deletion time against objects, log-log](").append(png).append(")\n\n`").append(png)
        .append("` is drawn by `bench/plot.py --loglog` from the CSV; a straight line of slope 1 is linear "
            + "growth.\n\n");

    out.append("| workload | contender | ms per object | requests per object | CPU s per 1,000 objects | "
        + "peak heap | after GC, at most |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (String w : s.workloads()) {
      int n = s.objects().get(w);
      for (String c : s.contenders()) {
        double sec = s.median(w, c);
        if (!Double.isFinite(sec)) {
          continue;
        }
        double req = median(s, w, c, "api_requests");
        double cpu = median(s, w, c, "cpu_seconds");
        out.append("| ").append(w).append(" | ").append(s.title(c)).append(" | ")
            .append(String.format(Locale.ROOT, "%.3f", sec * 1000 / n)).append(" | ")
            .append(Double.isFinite(req) ? Fmt.plain(req / n, 2) : "–").append(" | ")
            .append(ScaleSection.cpu(cpu * 1000 / n)).append(" | ")
            .append(mib(median(s, w, c, "peak_heap_bytes"))).append(" | ")
            .append(mib(median(s, w, c, "live_heap_bytes"))).append(" |\n");
      }
    }
    out.append("\n| workload | syncgc / floor at ").append(qps).append(" | lower bound of syncgc's rate limit: "
        + "(SPEC's minimum requests − burst) / QPS, over the floor's time | syncgc / floor, no client limit | syncgc / "
        + "foreground at ").append(qps).append(" |\n|---|---:|---:|---:|---:|\n");
    for (String w : s.workloads()) {
      double bound = Math.max(0, Workload.named(w).minimumSyncgcRequests() - s.burst()) / s.qps();
      out.append("| ").append(w).append(" | ").append(Fmt.ratio(s.median(w, "syncgc") / s.median(w, "floor")))
          .append(" | ").append(Fmt.ratio(bound / s.median(w, "floor")))
          .append(" | ").append(Fmt.ratio(s.median(w, "syncgc-unlimited") / s.median(w, "floor-unlimited")))
          .append(" | ").append(Fmt.ratio(s.median(w, "syncgc") / s.median(w, "foreground-qps"))).append(" |\n");
    }
    out.append('\n');
    if (s.failed() > 0) {
      out.append("**").append(s.failed()).append(" run(s) failed or left objects behind** (see `outcome` and "
          + "`leftover` in the CSV).\n\n");
    }
  }

  private static String onlyNote(Map<String, String> meta) {
    List<String> notes = new ArrayList<>();
    meta.forEach((k, v) -> {
      if (k.startsWith("only_")) {
        notes.add(meta.getOrDefault("title_" + k.substring(5), k.substring(5)) + " ran only " + v.replace(" ", ", "));
      }
    });
    return notes.isEmpty() ? "Every contender ran every size." : String.join("; ", notes)
        + " (the built-in collector at its default QPS takes about 20 minutes for 11,111 objects, and would take "
        + "hours at 100,000).";
  }

  static void targets(StringBuilder out, Report.Summary g, ScaleSection.Result r) {
    out.append("## Targets of growth\n\n| target | figures | met? |\n|---|---|---|\n");
    if (g == null) {
      out.append("| deletion time, growth | not measured (`make bench-growth`) | – |\n");
    } else {
      ratioTarget(out, g, "wide", "syncgc", "floor", 1.05, "at " + Fmt.num(g.qps()) + "/" + g.burst());
      ratioTarget(out, g, "tree", "syncgc", "floor", 1.25, "at " + Fmt.num(g.qps()) + "/" + g.burst());
      ratioTarget(out, g, "wide", "syncgc-unlimited", "floor-unlimited", 1.15, "with no client limit");
      ratioTarget(out, g, "tree", "syncgc-unlimited", "floor-unlimited", 1.35, "with no client limit");
      for (String c : List.of("syncgc-unlimited", "syncgc")) {
        linear(out, g, c);
      }
      double peak = Double.NaN;
      List<String> at = new ArrayList<>();
      for (String w : g.workloads()) {
        if (g.objects().get(w) >= 100_000) {
          for (String c : List.of("syncgc", "syncgc-unlimited")) {
            double p = median(g, w, c, "peak_heap_bytes");
            if (Double.isFinite(p)) {
              peak = Double.isNaN(peak) ? p : Math.max(peak, p);
              at.add(w + " " + c + ": " + Fmt.mib(p));
            }
          }
        }
      }
      out.append("| heap during a 100,000-object cascade under 256 MiB | ")
          .append(at.isEmpty() ? "not measured at 100,000" : String.join("; ", at) + " (peak occupancy; -Xmx"
              + g.csv().meta.getOrDefault("operator_heap", "?") + ")")
          .append(" | ").append(at.isEmpty() ? "–" : peak < 256 * 1024 * 1024 ? "yes" : "**no**").append(" |\n");
    }
    if (r != null && !r.get("kcm_heap_per_object_bytes").empty()) {
      double sy = r.median("heap_per_object_bytes");
      double kcm = r.median("kcm_heap_per_object_bytes");
      out.append("| syncgc's heap per tracked object at most half of kube-controller-manager's | ")
          .append(ScaleSection.bytes(sy)).append(" vs ").append(ScaleSection.bytes(kcm))
          .append(String.format(Locale.ROOT, " (%.2f×)", sy / kcm)).append(" | ")
          .append(sy <= kcm / 2 ? "yes" : "**no**").append(" |\n");
      double kcmCpu = r.median("cascade_kcm_cpu_per_1000");
      for (String[] run : new String[][] {{"cascade_syncgc_cpu_per_1000", "first cascade after start"},
          {"cascade_syncgc_warm_cpu_per_1000", "second cascade"}}) {
        double syCpu = r.median(run[0]);
        if (!Double.isFinite(syCpu)) {
          continue;
        }
        out.append("| syncgc's CPU per deleted object no higher than kube-controller-manager's for the same cascade ("
            + run[1] + ") | ").append(ScaleSection.cpu(syCpu)).append(" vs ").append(ScaleSection.cpu(kcmCpu))
            .append(" per 1,000 objects | ").append(!Double.isFinite(kcmCpu) ? "–" : syCpu <= kcmCpu ? "yes"
                : "**no**").append(" |\n");
      }
    } else {
      out.append("| heap and CPU beside kube-controller-manager | not measured (`make bench-scale`) | – |\n");
    }
    out.append("\nWhat the profiles showed, what was fixed, and what bounds each missed target: "
        + "[performance.md](performance.md).\n\n");
  }

  private static void ratioTarget(StringBuilder out, Report.Summary g, String shape, String syncgc, String floor,
      double bound, String how) {
    List<String> figures = new ArrayList<>();
    boolean all = true;
    for (String w : g.workloads()) {
      if (!w.startsWith(shape + "-")) {
        continue;
      }
      double r = g.median(w, syncgc) / g.median(w, floor);
      if (Double.isFinite(r)) {
        figures.add(w + ": " + Fmt.ratio(r));
        all &= r <= bound;
      }
    }
    out.append("| ").append(shape).append(" ≤ ").append(bound).append("× the floor ").append(how).append(" | ")
        .append(figures.isEmpty() ? "not measured" : String.join("; ", figures)).append(" | ")
        .append(figures.isEmpty() ? "–" : all ? "yes" : "**no**").append(" |\n");
  }

  /** Time per object at the largest size within 1.2× of that at the smallest, per shape. */
  private static void linear(StringBuilder out, Report.Summary g, String c) {
    for (String shape : List.of("wide", "tree")) {
      String small = null;
      String large = null;
      for (String w : g.workloads()) {
        if (w.startsWith(shape + "-") && Double.isFinite(g.median(w, c))) {
          if (small == null || g.objects().get(w) < g.objects().get(small)) {
            small = w;
          }
          if (large == null || g.objects().get(w) > g.objects().get(large)) {
            large = w;
          }
        }
      }
      if (small == null || small.equals(large) || g.objects().get(large) < 100_000) {
        continue;
      }
      double perSmall = g.median(small, c) / g.objects().get(small);
      double perLarge = g.median(large, c) / g.objects().get(large);
      double r = perLarge / perSmall;
      out.append("| ").append(g.title(c)).append(", ").append(shape).append(": time per object at ")
          .append(Fmt.count(g.objects().get(large))).append(" within 1.2× of that at ")
          .append(Fmt.count(g.objects().get(small))).append(" | ")
          .append(String.format(Locale.ROOT, "%.3f ms vs %.3f ms: %.2f×", perLarge * 1000, perSmall * 1000, r))
          .append(" | ").append(r <= 1.2 ? "yes" : "**no**").append(" |\n");
    }
  }

  static double median(Report.Summary s, String workload, String contender, String column) {
    List<Double> v = new ArrayList<>();
    for (Map<String, String> row : s.csv().rows) {
      if (workload.equals(row.get("workload")) && contender.equals(row.get("contender"))
          && "ok".equals(row.get("outcome"))) {
        double x = Csv.number(row, column);
        if (Double.isFinite(x)) {
          v.add(x);
        }
      }
    }
    return v.isEmpty() ? Double.NaN : Stats.of(v).median();
  }

  private static String mib(double bytes) {
    return Double.isFinite(bytes) ? Fmt.mib(bytes) : "–";
  }

  private static int minObjects(Report.Summary s) {
    return s.objects().values().stream().mapToInt(Integer::intValue).min().orElse(0);
  }

  private static int maxObjects(Report.Summary s) {
    return s.objects().values().stream().mapToInt(Integer::intValue).max().orElse(0);
  }
}
