package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The report of an in-use run, from its CSV. */
final class InUseSummary {
  private InUseSummary() {}

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
    for (String[] pair : List.of(new String[] {InUseCommand.USES, InUseCommand.PLAIN},
        new String[] {InUseCommand.WAVES, InUseCommand.PLAIN}, new String[] {InUseCommand.USES, InUseCommand.WAVES})) {
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
