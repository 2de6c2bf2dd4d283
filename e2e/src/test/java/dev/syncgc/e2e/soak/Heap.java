package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replicas' heap, comparable: each sample is taken right after a full collection that
 * {@code jcmd <pid> GC.run} asks of that very process (the replicas run on this machine), so it is
 * the live data, not whatever garbage a scrape happens to find. Samples are taken before each round
 * creates anything and after its cleanup, and compared only within one process: faults kill the
 * leader, and a process started afresh says nothing about the one before it. The operator exposes
 * no tombstone count (its DependencyGraph keeps at most 50 000); the graph's objects and edges, the
 * deletions in progress and JOSDK's reconciliation queues are sampled with the heap.
 */
final class Heap {

  /** One process after a full GC: heap in use, graph objects and edges, deletions in progress, queued. */
  record Sample(String replica, long pid, double heapMiB, long graphObjects, long graphEdges, long inProgress,
      long queued) {
    String brief() {
      return String.format("%.1f MiB, graph %d/%d, in progress %d, queued %d", heapMiB, graphObjects, graphEdges,
          inProgress, queued);
    }
  }

  /** The first and the latest sample of one process, and when each was taken ("before round 3"). */
  record Life(Sample first, String firstWhen, Sample last, String lastWhen) {}

  private final Map<Long, Life> lives = new LinkedHashMap<>();

  /** Samples every live replica (a replica that cannot be sampled is left out). */
  List<Sample> sample(List<OperatorProcess> replicas) {
    List<Sample> out = new ArrayList<>();
    for (OperatorProcess r : replicas) {
      try {
        if (!r.isAlive()) {
          continue;
        }
        ProcessRunner.Result gc = ProcessRunner.run(List.of(jcmd(), Long.toString(r.pid()), "GC.run"), Map.of(),
            Duration.ofSeconds(60));
        if (!gc.ok()) {
          continue;
        }
        Metrics m = Metrics.parse(r.metrics());
        long queued = Math.round(m.namesStartingWith("operator_sdk_reconciliations_queue_size").stream()
            .mapToDouble(name -> m.sum(name, Map.of()).orElse(0)).sum());
        out.add(new Sample(r.logFile().getFileName().toString().replace(".log", ""), r.pid(),
            m.sum("jvm_memory_used_bytes", Map.of("area", "heap")).orElse(0) / (1 << 20),
            Math.round(m.sum("syncgc_graph_objects", Map.of()).orElse(0)),
            Math.round(m.sum("syncgc_graph_owner_references", Map.of()).orElse(0)),
            Math.round(m.sum("syncgc_deletions_in_progress", Map.of()).orElse(0)), queued));
      } catch (RuntimeException e) {
        // a replica restarting now is sampled next time
      }
    }
    return out;
  }

  /**
   * The heap of each process sampled both before and after round {@code number}, for the rounds
   * table; a process sampled before and not after is named as replaced.
   */
  String round(int number, List<Sample> before, List<Sample> after) {
    List<String> parts = new ArrayList<>();
    for (Sample b : before) {
      lives.putIfAbsent(b.pid(), new Life(b, "before round " + number, b, "before round " + number));
    }
    for (Sample a : after) {
      String when = "after round " + number;
      lives.merge(a.pid(), new Life(a, when, a, when), (old, now) -> new Life(old.first(), old.firstWhen(), a, when));
    }
    for (Sample b : before) {
      Sample a = after.stream().filter(x -> x.pid() == b.pid()).findFirst().orElse(null);
      parts.add(a == null ? b.replica() + ": replaced (pid " + b.pid() + " killed or exited)"
          : String.format("%s: %.1f → %.1f MiB", b.replica(), b.heapMiB(), a.heapMiB()));
    }
    return parts.isEmpty() ? "-" : String.join("; ", parts);
  }

  /** Every process sampled, oldest first: its first and latest sample (round 0: before round 1). */
  List<Life> lives() {
    return List.copyOf(lives.values());
  }

  private static String jcmd() {
    Path beside = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    return Files.isExecutable(beside) ? beside.toString() : "jcmd";
  }
}
