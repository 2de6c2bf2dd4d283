package dev.syncgc.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Judges a compare run's API requests per cascade against SPEC's minimum ({@link RequestGuard}), prints it with
 * the ratios to the floor and the operator's CPU, appends a row to the history, and exits 1 when it fails.
 */
@Command(name = "guard", mixinStandardHelpOptions = true,
    description = {"Judges the API requests of the syncgc-unlimited cascades of a compare run (--csv): they fail "
        + "more than 5 % above SPEC's minimum (LISTs and watches apart), or LISTs above one per namespaced kind and "
        + "owner. A count, never a time: ratios to floor-unlimited and CPU are printed and kept in --history.",
        "make bench-guard runs compare, then this."})
final class GuardCommand implements Callable<Integer> {
  @Mixin Options opts;

  @Option(names = "--history", defaultValue = "docs/bench-guard.csv",
      description = "A row per guard run is appended here (default: ${DEFAULT-VALUE}).")
  Path history;

  @Override
  public Integer call() throws Exception {
    Csv run = Csv.read(opts.csv)
        .orElseThrow(() -> new IllegalArgumentException("no compare results in " + opts.csv + ": run compare first"));
    int kinds;
    try (Cluster cluster = Cluster.connect(opts.clusterScript)) {
      kinds = cluster.namespacedKinds();
    }
    RequestGuard guard = new RequestGuard(run, kinds);
    System.out.println("request guard (" + opts.csv + ", " + kinds + " namespaced kinds served):");
    System.out.println(guard.report());
    append(guard.historyRow());
    System.out.println((guard.passed() ? "request guard passed" : "request guard FAILED") + "; appended to " + history);
    return guard.passed() ? 0 : 1;
  }

  private void append(Map<String, String> row) throws java.io.IOException {
    StringBuilder out = new StringBuilder();
    if (!Files.exists(history)) {
      out.append("# make bench-guard: a row per run (docs/benchmarks.md, \"The request guard\"); values per workload\n");
      out.append(String.join(",", RequestGuard.HISTORY_HEADER)).append('\n');
    }
    out.append(String.join(",", RequestGuard.HISTORY_HEADER.stream().map(h -> Csv.clean(row.get(h)))
        .toList())).append('\n');
    Files.writeString(history, out.toString(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
