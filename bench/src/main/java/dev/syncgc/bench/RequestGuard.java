package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The verdict of a short compare run (syncgc-unlimited and floor-unlimited) on the API requests syncgc sent per
 * cascade, a count and never a time (docs/benchmarks.md, "The request guard", derives the minimum):
 *
 * <ul>
 *   <li>every request but the freshness LISTs and the watches at most {@link #SLACK} above SPEC's minimum
 *       ({@link #minimum});
 *   <li>the LISTs at most one per namespaced kind and owner (the freshness check's design: one check per owner
 *       being deleted, one LIST per kind answering every owner seen before it; how many owners share one
 *       follows timing, so only this bound is not noisy);
 *   <li>every syncgc cascade finished ({@code ok}, nothing left).
 * </ul>
 *
 * Ratios to the floor and the operator's CPU are printed and kept in the history, never judged.
 */
final class RequestGuard {
  /** How far above the minimum the counted requests may be: 5 %. */
  static final double SLACK = 0.05;
  /** The root's start record (its deadline and dependent count) and the Events SPEC names: Started, Completed. */
  static final int PER_CASCADE = 3;
  static final List<String> HISTORY_HEADER = List.of("date", "commit", "load1", "ratio_to_floor", "cpu_seconds",
      "cpu_seconds_per_1000", "requests_to_minimum", "lists", "outcome");
  /** The commit in the run's "syncgc" metadata: "0.1.0-SNAPSHOT (1e07ff3)", "(1e07ff3, with local changes)". */
  private static final Pattern COMMIT = Pattern.compile("\\(([0-9a-f]{7,40})(, with local changes)?\\)");
  private static final String SYNCGC = "syncgc-unlimited";
  private static final String FLOOR = "floor-unlimited";

  private final Csv run;
  private final int namespacedKinds;
  private final List<String> lines = new ArrayList<>();
  private final Map<String, String> ratios = new LinkedHashMap<>();
  private final Map<String, String> cpu = new LinkedHashMap<>();
  private final Map<String, String> cpuPer1000 = new LinkedHashMap<>();
  private final Map<String, String> requests = new LinkedHashMap<>();
  private final Map<String, String> lists = new LinkedHashMap<>();
  private boolean passed = true;

  /**
   * @param run a compare run's CSV with syncgc-unlimited rows (and floor-unlimited rows for the ratios)
   * @param namespacedKinds the namespaced kinds syncgc tracks, bench's own included: the LISTs' bound per owner
   */
  RequestGuard(Csv run, int namespacedKinds) {
    this.run = run;
    this.namespacedKinds = namespacedKinds;
    for (Map<String, String> row : run.rows) {
      if (SYNCGC.equals(row.get("contender"))) {
        judge(row);
      }
    }
    if (requests.isEmpty()) {
      fail("no " + SYNCGC + " cascade in the run: nothing was guarded");
    }
  }

  /** SPEC's fewest requests for a cascade of {@code w} once its root is deleted, and {@link #PER_CASCADE}. */
  static int minimum(Workload w) {
    return w.minimumSyncgcRequests() + PER_CASCADE;
  }

  boolean passed() {
    return passed;
  }

  /** What was measured and judged, a line per cascade. */
  String report() {
    return String.join("\n", lines);
  }

  /** One row of the history (docs/bench-guard.csv): the run, each value "workload=value" joined by ';'. */
  Map<String, String> historyRow() {
    Map<String, String> row = new LinkedHashMap<>();
    row.put("date", run.meta.getOrDefault("date", ""));
    Matcher m = COMMIT.matcher(run.meta.getOrDefault("syncgc", ""));
    row.put("commit", !m.find() ? "" : m.group(2) == null ? m.group(1) : m.group(1) + " with local changes");
    row.put("load1", run.rows.isEmpty() ? "" : run.rows.get(0).getOrDefault("load1", ""));
    row.put("ratio_to_floor", joined(ratios));
    row.put("cpu_seconds", joined(cpu));
    row.put("cpu_seconds_per_1000", joined(cpuPer1000));
    row.put("requests_to_minimum", joined(requests));
    row.put("lists", joined(lists));
    row.put("outcome", passed ? "passed" : "failed");
    return row;
  }

  /** "create=3;delete=2000" as a map; an entry that is not VERB=COUNT is refused. */
  static Map<String, Long> byVerb(String verbs) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String entry : verbs == null ? new String[0] : verbs.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] p = entry.split("=");
      if (p.length != 2 || !p[1].strip().matches("\\d+")) {
        throw new IllegalArgumentException("requests by verb: '" + entry + "' is not VERB=COUNT in '" + verbs + "'");
      }
      out.merge(p[0].strip(), Long.parseLong(p[1].strip()), Long::sum);
    }
    return out;
  }

  private void judge(Map<String, String> row) {
    String name = row.get("workload");
    Workload w = Workload.named(name);
    Map<String, Long> verbs = byVerb(row.get("requests_by_verb"));
    long listed = verbs.getOrDefault("list", 0L);
    long counted = verbs.entrySet().stream().filter(e -> !e.getKey().equals("list") && !e.getKey().equals("watch"))
        .mapToLong(Map.Entry::getValue).sum();
    int min = minimum(w);
    long allowed = (long) Math.floor(min * (1 + SLACK));
    long owners = w.objects() - w.levelSize(w.depth());
    long listBound = owners * namespacedKinds;
    double seconds = Csv.number(row, "seconds");
    double floor = floorSeconds(name);
    double cpuSeconds = Csv.number(row, "cpu_seconds");
    ratios.put(name, Fmt.ratio(seconds / floor));
    cpu.put(name, Fmt.plain(cpuSeconds, 3));
    cpuPer1000.put(name, Fmt.plain(cpuSeconds * 1000 / w.objects(), 3));
    requests.put(name, counted + "/" + min);
    lists.put(name, Long.toString(listed));
    List<String> why = new ArrayList<>();
    if (counted > allowed) {
      why.add(counted + " requests besides LISTs and watches, more than " + allowed + " (minimum " + min + " + 5 %)");
    }
    if (listed > listBound) {
      why.add(listed + " LISTs, more than one per namespaced kind and owner (" + namespacedKinds + " x " + owners
          + ")");
    }
    if (!"ok".equals(row.get("outcome")) || Csv.number(row, "leftover") > 0) {
      why.add("the cascade did not finish: " + row.get("outcome") + ", " + row.get("leftover") + " objects left");
    }
    lines.add(String.format(java.util.Locale.ROOT,
        "%s: %s  requests %d besides LISTs and watches, SPEC's minimum %d (%+.1f %%, at most +5 %%); LISTs %d "
            + "(at most %d); by verb %s; %s vs floor %s (%s x); operator CPU %s (%s per 1,000 objects)",
        name, why.isEmpty() ? "passed" : "FAILED: " + String.join("; ", why), counted, min,
        100.0 * (counted - min) / min, listed, listBound, row.get("requests_by_verb"), Fmt.seconds(seconds),
        Fmt.seconds(floor), Fmt.ratio(seconds / floor), Fmt.seconds(cpuSeconds),
        Fmt.seconds(cpuSeconds * 1000 / w.objects())));
    if (!why.isEmpty()) {
      passed = false;
    }
  }

  private double floorSeconds(String workload) {
    return run.rows.stream().filter(r -> FLOOR.equals(r.get("contender")) && workload.equals(r.get("workload")))
        .mapToDouble(r -> Csv.number(r, "seconds")).findFirst().orElse(Double.NaN);
  }

  private void fail(String why) {
    lines.add("FAILED: " + why);
    passed = false;
  }

  private static String joined(Map<String, String> values) {
    return String.join(";", values.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }
}
