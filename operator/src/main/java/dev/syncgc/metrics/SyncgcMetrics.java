package dev.syncgc.metrics;

import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.kube.CallCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The {@code syncgc_} metrics of SPEC.md: the operator's (the plugin counts nothing, {@link CallCounts#NONE}). */
public final class SyncgcMetrics implements CallCounts {
  private final MeterRegistry registry;
  private final Counter started;
  private final Counter rings;
  private final Counter invalidAnnotations;
  private final Counter unseenFound;
  private final Timer duration;
  private final Timer inUseHold;

  public SyncgcMetrics(MeterRegistry registry) {
    this.registry = registry;
    started = Counter.builder("syncgc.deletions.started")
        .description("Synchronous deletions started").register(registry);
    rings = Counter.builder("syncgc.cycles.found") // SPEC: "cycles found"; a ring in the code
        .description("Ownership rings (cycles) found and released").register(registry);
    invalidAnnotations = Counter.builder("syncgc.invalid.annotations")
        .description("Invalid syncgc.dev annotations seen").register(registry);
    unseenFound = Counter.builder("syncgc.freshness.unseen.objects")
        .description("Objects the freshness check found by LIST before the watch delivered them")
        .register(registry);
    duration = timer("syncgc.deletion.duration", "From the owner's deletion to the release of its finalizer");
    inUseHold = timer("syncgc.in.use.hold.duration",
        "How long a used object under deletion waited for its users (syncgc.dev/uses)");
    for (Outcome o : Outcome.values()) {
      finishedCounter(o);
    }
  }

  /** @param oldestAgeSeconds the age of the oldest deletion in progress, 0 when there is none */
  public void gauges(Supplier<Number> inProgress, Supplier<Number> oldestAgeSeconds, Supplier<Number> graphObjects,
      Supplier<Number> graphReferences, Supplier<Number> unseenOwners, Supplier<Number> queueDepth) {
    Gauge.builder("syncgc.deletions.in.progress", inProgress)
        .description("Owners held by syncgc while their dependents go").register(registry);
    TimeGauge.builder("syncgc.deletions.oldest.age", oldestAgeSeconds, TimeUnit.SECONDS)
        .description("Time since the deletionTimestamp of the oldest owner syncgc holds, 0 when it holds none")
        .register(registry);
    Gauge.builder("syncgc.graph.objects", graphObjects)
        .description("Objects in the dependency graph").register(registry);
    Gauge.builder("syncgc.graph.owner.references", graphReferences)
        .description("Owner references (edges) in the dependency graph").register(registry);
    Gauge.builder("syncgc.graph.unseen.owners", unseenOwners)
        .description("Owners named by owner references that the graph has not seen (not created yet, gone,"
            + " or of a kind not tracked)").register(registry);
    Gauge.builder("syncgc.queue.depth", queueDepth)
        .description("Objects waiting for a worker (a growing queue with idle workers means a stuck operator)")
        .register(registry);
  }

  /** The work queue's meters ({@code syncgc_queue_*}); the depth is one of {@link #gauges}. */
  public QueueMeters queueMeters() {
    return new QueueMeters(registry);
  }

  /** {@code syncgc_leader}: 1 while this replica leads (its workers run), else 0. */
  public void leader(Supplier<Boolean> leading) {
    Gauge.builder("syncgc.leader", () -> leading.get() ? 1 : 0)
        .description("1 while this replica leads (its workers act), 0 on a standby").register(registry);
  }

  /** SPEC "In use": the used objects held now, and the age of the oldest hold (0 when none). */
  public void inUseGauges(Supplier<Number> held, Supplier<Number> oldestAgeSeconds) {
    Gauge.builder("syncgc.in.use.holds", held)
        .description("Used objects under deletion that wait for their users (syncgc.dev/uses)").register(registry);
    TimeGauge.builder("syncgc.in.use.oldest.age", oldestAgeSeconds, TimeUnit.SECONDS)
        .description("Time the oldest in-use hold has lasted, 0 when there is none").register(registry);
  }

  public void inUseHeld(Duration held) {
    inUseHold.record(held);
  }

  /**
   * {@code syncgc_build_info{version, revision, java_version} 1}: what runs, to read on a dashboard or
   * join onto other series. A Prometheus info metric, registered in the Prometheus registry under the
   * Micrometer one: a Micrometer gauge cannot be named {@code *_info} (the suffix is reserved, and
   * would be cut). A value not known (null or blank) is {@code unknown}.
   *
   * @param version the operator's version (its jar's Implementation-Version)
   * @param revision the git commit it was built from (the image's SYNCGC_REVISION)
   */
  public static void buildInfo(PrometheusRegistry registry, String version, String revision) {
    Info.builder().name("syncgc_build_info")
        .help("The running syncgc: its version, the git commit it was built from and the Java version; always 1")
        .labelNames("version", "revision", "java_version")
        .register(registry)
        .setLabelValues(known(version), known(revision), known(System.getProperty("java.version")));
  }

  private static String known(String value) {
    return value == null || value.isBlank() ? "unknown" : value.strip();
  }

  /** A histogram of durations from 10 ms to 2 h, the range of a deletion. */
  private Timer timer(String name, String description) {
    return Timer.builder(name).description(description).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(10)).maximumExpectedValue(Duration.ofHours(2)).register(registry);
  }

  private Counter finishedCounter(Outcome outcome) {
    return Counter.builder("syncgc.deletions.finished").tag("outcome", outcome.label())
        .description("Deletions finished, by outcome").register(registry);
  }

  public void started() {
    started.increment();
  }

  public void finished(Outcome outcome, Duration took) {
    finishedCounter(outcome).increment();
    if (took != null && !took.isNegative()) {
      duration.record(took);
    }
  }

  public void ringFound() {
    rings.increment();
  }

  public void unseenFound(int count) {
    unseenFound.increment(count);
  }

  public void invalidAnnotation() {
    invalidAnnotations.increment();
  }

  @Override
  public void apiRequest(String verb, int code) {
    Counter.builder("syncgc.api.requests").tag("verb", verb).tag("code", Integer.toString(code))
        .description("API requests syncgc issued, by verb and response code").register(registry)
        .increment();
  }

  @Override
  public void apiLatency(String verb, Duration took) {
    Timer.builder("syncgc.api.request.duration").tag("verb", verb)
        .description("Time from sending an API request to its answer (a watch: to its headers), by verb")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(70)).register(registry).record(took);
  }

  @Override
  public void callNotSent(String verb) {
    Counter.builder("syncgc.api.calls.not.sent").tag("verb", verb)
        .description("Calls a plan decided on that were not sent: the owner was asked to orphan or let go,"
            + " another owner keeps the object now, or this replica stopped leading").register(registry)
        .increment();
  }

  /** Watches restarted after a silence past the limit (a connection dropped without a close). */
  public void silentWatches(Supplier<Number> restarted) {
    FunctionCounter.builder("syncgc.watch.silent.restarts", restarted, r -> r.get().doubleValue())
        .description("Watches restarted because nothing (no event, no bookmark) came for longer than the limit:"
            + " a connection dropped without a close").register(registry);
  }

  /**
   * Watches that ended other than at the API server's timeout and were opened again, by kind and why:
   * {@code failed} (no answer, or the connection broke), {@code refused} (an answer other than 200),
   * {@code expired} (410: listed again), {@code silent} (nothing came past the limit).
   */
  public void watchRestarted(String kind, String reason) {
    watchRestartCounter(kind, reason).increment();
  }

  /** A tracked kind's watch restart counters, each reason's at 0 until it counts (an alert reads them). */
  public void watchRestarts(String kind, List<String> reasons) {
    reasons.forEach(reason -> watchRestartCounter(kind, reason));
  }

  private Counter watchRestartCounter(String kind, String reason) {
    return Counter.builder("syncgc.watch.restarts").tag("kind", kind).tag("reason", reason)
        .description("Watches ended other than at the server's timeout and opened again, by kind and reason")
        .register(registry);
  }

  /** Discovery reads that failed: a whole refresh, or one group-version in it. */
  public void discoveryFailures(Supplier<Number> failures) {
    FunctionCounter.builder("syncgc.discovery.failures", failures, f -> f.get().doubleValue())
        .description("Discovery reads that failed (a whole refresh, or one group-version of it)").register(registry);
  }

  /** GarbageCollectionPolicies whose Ready condition is False (invalid): none of their settings apply. */
  public void policiesNotReady(Supplier<Number> count) {
    Gauge.builder("syncgc.policies.not.ready", count)
        .description("GarbageCollectionPolicies whose Ready condition is False (invalid, not in force);"
            + " counted by the leader, whose reconciler judges them").register(registry);
  }

  /** Group-versions the API server lists whose discovery failed at the last refresh: their kinds are not tracked. */
  public void unreadGroupVersions(Supplier<Number> count) {
    Gauge.builder("syncgc.discovery.unread.group.versions", count)
        .description("Group-versions whose discovery failed (an aggregated API down): kinds in them are not tracked")
        .register(registry);
  }

  /** {@code syncgc_kinds_forbidden}: tracked kinds whose list and watch the API server refuses (RBAC). */
  public void forbiddenKinds(Supplier<Number> count) {
    Gauge.builder("syncgc.kinds.forbidden", count)
        .description("Tracked kinds syncgc may not list and watch (403): their objects are not seen, an owner of"
            + " them counts as keeping")
        .register(registry);
  }
}
