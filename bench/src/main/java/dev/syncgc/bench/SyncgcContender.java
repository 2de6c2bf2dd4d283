package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * syncgc, default settings (or with no client-side limit): the root carries {@code syncgc.dev/propagation: Synchronous}; once the
 * operator has put its finalizer on it and seen the whole tree, a plain DELETE (as kubectl sends).
 * syncgc-keep: the same with every tenth dependent kept ({@code syncgc.dev/keep}), patched instead of deleted.
 */
final class SyncgcContender implements Contender {
  private static final Logger log = LoggerFactory.getLogger(SyncgcContender.class);
  private static final int GRAPH_SLACK = 10;
  private final boolean unlimited;
  private final int keepEvery;

  /**
   * @param unlimited started with {@code --kube-api-qps 0}: no client-side limit, the API server's only
   * @param keepEvery N > 0: the dependents 0, N, 2N... of each level are kept; 0: none
   */
  SyncgcContender(boolean unlimited, int keepEvery) {
    if (unlimited && keepEvery > 0) {
      throw new IllegalArgumentException("no contender keeps dependents with no client limit");
    }
    this.unlimited = unlimited;
    this.keepEvery = keepEvery;
  }

  @Override
  public String id() {
    return unlimited ? "syncgc-unlimited" : keepEvery > 0 ? "syncgc-keep" : "syncgc";
  }

  @Override
  public String title(double qps, int burst) {
    return unlimited ? "syncgc, no client limit" : keepEvery > 0 ? "syncgc, every " + keepEvery + "th dependent kept"
        : "syncgc";
  }

  @Override
  public int keepEvery() {
    return keepEvery;
  }

  @Override
  public List<String> operatorArgs() {
    return unlimited ? List.of("--kube-api-qps", "0") : List.of();
  }

  @Override
  public boolean usesOperator() {
    return true;
  }

  @Override
  public Map<String, String> rootAnnotations() {
    return Map.of(Names.PROPAGATION, "Synchronous");
  }

  @Override
  public void prepare(Context ctx, Tree tree, double graphBefore) throws InterruptedException {
    ctx.cluster().awaitFinalizer(tree.namespace(), "root");
    // The operator's graph holds the whole tree (its watch may lag behind our creates). The graph also
    // loses the ConfigMaps of earlier runs' namespaces while they are deleted: allow for a few.
    long graphDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ctx.syncgc().graphObjects() < graphBefore + tree.objects() - GRAPH_SLACK) {
      if (System.nanoTime() > graphDeadline) {
        log.warn("syncgc's graph has {} objects, expected at least {}; going on", ctx.syncgc().graphObjects(),
            graphBefore + tree.objects() - GRAPH_SLACK);
        break;
      }
      Thread.sleep(100);
    }
  }

  @Override
  public Measurement measure(Context ctx, Tree tree) throws InterruptedException {
    try {
      return measureSyncgc(ctx, tree);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Measurement measureSyncgc(Context ctx, Tree tree) throws InterruptedException, java.io.IOException {
    SyncgcProcess op = ctx.syncgc();
    String before = op.metrics();
    long gcMark = op.gcMark();
    double seconds;
    Tree.Node root = tree.root();
    try (RootWatch watch = new RootWatch(ctx.cluster().client, tree.namespace(), root.name(), root.uid())) {
      watch.awaitPresent();
      long start = System.nanoTime();
      ctx.cluster().api.delete(tree.namespace(), root.name(), root.uid(), "Background");
      seconds = Contender.secondsUntilGone(watch, start, ctx.timeout());
    }
    Thread.sleep(1000); // requests that trail the release (Events) belong to this run
    String after = op.metrics();
    double requests = Prom.sum(after, "syncgc_api_requests_total", null)
        - Prom.sum(before, "syncgc_api_requests_total", null);
    Map<String, Double> verbs = Prom.deltaByLabel(before, after, "syncgc_api_requests_total", "verb");
    String byVerb = verbs.entrySet().stream().map(e -> e.getKey() + "=" + Math.round(e.getValue()))
        .collect(Collectors.joining(";"));
    // a series that first appears during the run counts from 0 (plain subtraction gave NaN: "ok")
    double timedOut = Prom.delta(before, after, "syncgc_deletions_finished_total", "outcome=\"timed_out\"");
    double cpu = Prom.sum(after, "process_cpu_seconds_total", null) - Prom.sum(before, "process_cpu_seconds_total", null);
    GcLog.Peak peak = op.gcSince(gcMark); // before the full GC below
    double heap = op.heapAfterGc();
    return new Measurement(seconds, requests, byVerb, heap, cpu, peak.beforeBytes(), peak.afterBytes(),
        timedOut > 0 ? "timed_out" : "ok");
  }
}
