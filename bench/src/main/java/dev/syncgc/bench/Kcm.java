package dev.syncgc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager (the built-in garbage collector) at its default QPS or raised to syncgc's:
 * restarted through {@code e2e/cluster.sh restart-kcm} with SYNCGC_KCM_EXTRA_ARGS, then probed with a
 * small foreground deletion until its garbage collector works (and knows the bench kind).
 */
final class Kcm {
  private static final Logger log = LoggerFactory.getLogger(Kcm.class);
  static final String DEFAULT_QPS = "20/30"; // kube-controller-manager's --kube-api-qps/--kube-api-burst defaults

  enum Mode { DEFAULT, RAISED }

  private final Cluster cluster;
  private final Path logFile;
  private final String raisedArgs;
  private Mode current;
  private int probes;

  Kcm(Cluster cluster, Path logDir, double qps, int burst) {
    this.cluster = cluster;
    this.logFile = logDir.resolve("restart-kcm.log");
    this.raisedArgs = "--kube-api-qps " + Fmt.num(qps) + " --kube-api-burst " + burst;
  }

  String raisedArgs() {
    return raisedArgs;
  }

  void ensure(Mode mode) throws IOException, InterruptedException {
    if (current != mode) {
      restart(mode == Mode.RAISED ? raisedArgs : "");
      current = mode;
    }
  }

  /** Leaves kube-controller-manager as `cluster.sh up` started it (the caller's SYNCGC_KCM_EXTRA_ARGS). */
  void restore() throws IOException, InterruptedException {
    if (current != null) {
      restart(System.getenv().getOrDefault("SYNCGC_KCM_EXTRA_ARGS", ""));
      current = null;
    }
  }

  private void restart(String extraArgs) throws IOException, InterruptedException {
    log.info("restarting kube-controller-manager with SYNCGC_KCM_EXTRA_ARGS=\"{}\"", extraArgs);
    Files.createDirectories(logFile.getParent());
    ProcessBuilder pb = new ProcessBuilder("bash", cluster.script.toString(), "restart-kcm")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().put("SYNCGC_KCM_EXTRA_ARGS", extraArgs);
    Process p = pb.start();
    if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(cluster.script + " restart-kcm failed; see " + logFile);
    }
    probe();
  }

  /** A two-object foreground deletion that must finish: the garbage collector is up and watches bench items. */
  private void probe() throws InterruptedException {
    final long probeSeconds = 900;
    String ns = "syncgc-bench-probe";
    if (cluster.client.namespaces().withName(ns).get() == null) {
      cluster.createNamespace(ns, "probe");
    }
    long start = System.nanoTime();
    String owner = "probe-" + (++probes) + "-" + System.currentTimeMillis();
    String uid = cluster.api.create(BenchCrd.item(ns, owner, List.of(), Map.of(), Map.of(), 0));
    cluster.api.create(BenchCrd.item(ns, owner + "-dep", List.of(BenchCrd.owner(owner, uid)), Map.of(), Map.of(), 1));
    Thread.sleep(1000); // let the collector's informers see both
    cluster.api.delete(ns, owner, uid, "Foreground");
    // its collector first syncs every tracked object: with 700,000 of them the 1,000,000-object run took
    // over 180 s, the old bound, and the run ended before writing its CSV
    long deadline = start + TimeUnit.SECONDS.toNanos(probeSeconds);
    var items = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns);
    while (items.withName(owner).get() != null) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("kube-controller-manager's garbage collector did not finish a foreground "
            + "deletion of two objects in " + probeSeconds + " s; see its log");
      }
      Thread.sleep(200);
    }
    log.info("kube-controller-manager's garbage collector works ({} ms after the restart)",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }
}
