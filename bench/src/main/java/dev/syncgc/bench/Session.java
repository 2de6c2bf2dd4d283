package dev.syncgc.bench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a measuring command opens first: the local control plane, the pool that creates the objects, the
 * operator process (not started) and kube-controller-manager's metrics; the machine described in the CSV's
 * metadata and the bench CRD installed. Closed in the reverse order.
 */
final class Session implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Session.class);

  final Cluster cluster;
  final Parallel pool;
  final SyncgcProcess syncgc;
  final KcmMetrics kcmMetrics;
  private final Csv csv;
  private final long begun = System.nanoTime();

  private Session(Cluster cluster, Parallel pool, SyncgcProcess syncgc, KcmMetrics kcmMetrics, Csv csv) {
    this.cluster = cluster;
    this.pool = pool;
    this.syncgc = syncgc;
    this.kcmMetrics = kcmMetrics;
    this.csv = csv;
  }

  /**
   * Opens everything for command {@code name}: the operator logs to {@code operator-NAME.log} under --logs;
   * {@code csv}'s metadata gets the machine and the load average at the start.
   */
  static Session open(Options opts, String name, Csv csv) throws Exception {
    Cluster cluster = Cluster.connect(opts.clusterScript);
    Parallel pool = null;
    SyncgcProcess syncgc = null;
    KcmMetrics kcmMetrics = null;
    try {
      pool = new Parallel(opts.createParallelism, "create");
      syncgc = new SyncgcProcess(opts.operatorJar, cluster.kubeconfig, opts.logs.resolve("operator-" + name + ".log"),
          opts.operatorHeap, opts.operatorJvmOptions);
      kcmMetrics = new KcmMetrics(opts.kcmUrl);
      Session session = new Session(cluster, pool, syncgc, kcmMetrics, csv);
      Machine.describe(csv.meta, cluster);
      csv.meta.put("load_start", Machine.load());
      BenchCrd.install(cluster.client, opts.widgetCrd);
      return session;
    } catch (Exception | Error e) {
      closeAll(kcmMetrics, syncgc, pool, cluster);
      throw e;
    }
  }

  /** Seconds since the session was opened. */
  long elapsedSeconds() {
    return Math.round((System.nanoTime() - begun) / 1e9);
  }

  /** The load average and the duration so far into the CSV's metadata, before it is written. */
  void stamp() {
    csv.meta.put("load_end", Machine.load());
    csv.meta.put("duration", elapsedSeconds() + " s");
  }

  @Override
  public void close() {
    closeAll(kcmMetrics, syncgc, pool, cluster);
  }

  private static void closeAll(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Exception e) {
        log.warn("could not close {}: {}", r.getClass().getSimpleName(), e.toString());
      }
    }
  }
}
