package dev.syncgc.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** One way of deleting a tree; each run is measured from the first DELETE until the root is gone. */
interface Contender {
  List<String> IDS = List.of("syncgc", "syncgc-keep", "foreground", "foreground-qps", "floor", "syncgc-unlimited",
      "floor-unlimited");

  /**
   * What a run gives: seconds; the requests and CPU seconds of whoever did the deleting (syncgc, or
   * kube-controller-manager as a whole); syncgc's heap after a full GC at the end, its peak occupancy and its
   * largest live heap after a collection during the run. NaN where not measured.
   */
  record Measurement(double seconds, double apiRequests, String requestsByVerb, double heapBytes, double cpuSeconds,
      double peakHeapBytes, double liveHeapBytes, String outcome) {
    static Measurement failed(String why) {
      return new Measurement(Double.NaN, Double.NaN, "", Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          "failed: " + why);
    }

    Measurement withOutcome(String outcome) {
      return new Measurement(seconds, apiRequests, requestsByVerb, heapBytes, cpuSeconds, peakHeapBytes,
          liveHeapBytes, outcome);
    }
  }

  /** What a contender may use during a run; kcm is null when kube-controller-manager's metrics cannot be read. */
  record Context(Cluster cluster, SyncgcProcess syncgc, KcmMetrics kcm, Parallel deletePool, double qps, int burst,
      Duration timeout) {}

  String id();

  String title(double qps, int burst);

  /** The kube-controller-manager it runs against; DEFAULT for those that do not use it. */
  default Kcm.Mode kcm() {
    return Kcm.Mode.DEFAULT;
  }

  default boolean usesOperator() {
    return false;
  }

  /** Flags the operator is started with for this contender (after the benchmark's own). */
  default List<String> operatorArgs() {
    return List.of();
  }

  default Map<String, String> rootAnnotations() {
    return Map.of();
  }

  /** N: the dependents 0, N, 2N... of each level carry {@code syncgc.dev/keep: "true"}; 0 for none. */
  default int keepEvery() {
    return 0;
  }

  /** Before the settle time: e.g. wait until syncgc has put its finalizer on the root. */
  default void prepare(Context ctx, Tree tree, double graphBefore) throws InterruptedException {}

  Measurement measure(Context ctx, Tree tree) throws InterruptedException;

  static Contender of(String id) {
    return switch (id) {
      case "syncgc" -> new SyncgcContender(false, 0);
      case "syncgc-keep" -> new SyncgcContender(false, 10);
      case "syncgc-unlimited" -> new SyncgcContender(true, 0);
      case "foreground" -> new ForegroundContender(Kcm.Mode.DEFAULT);
      case "foreground-qps" -> new ForegroundContender(Kcm.Mode.RAISED);
      case "floor" -> new FloorContender(false);
      case "floor-unlimited" -> new FloorContender(true);
      default -> throw new IllegalArgumentException("unknown contender '" + id + "'; known: " + IDS);
    };
  }

  /** Seconds from start until the root is gone, measured by a watch started before the first DELETE. */
  static double secondsUntilGone(RootWatch watch, long startNanos, Duration timeout) throws InterruptedException {
    return (watch.awaitGone(timeout) - startNanos) / 1e9;
  }
}
