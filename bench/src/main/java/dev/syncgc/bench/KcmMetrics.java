package dev.syncgc.bench;

import dev.syncgc.kube.ClientConfigs;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's own figures, read from its secure port with the cluster's admin
 * credentials: {@code /metrics} (process CPU, client-go's requests, Go heap) and
 * {@code /debug/pprof/heap?gc=1}, which runs a garbage collection first: the Go counterpart of
 * {@code jcmd GC.run}, so that both heaps are read after the same settling.
 */
final class KcmMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KcmMetrics.class);
  private static final String GRAPH_QUEUE = "name=\"garbage_collector_graph_changes\"";

  private final KubernetesClient client;
  private final String url;

  /** @param url kube-controller-manager's secure endpoint, e.g. https://127.0.0.1:16257 */
  KcmMetrics(String url) {
    this.url = url.replaceAll("/+$", "");
    // Its serving certificate is self-signed; the client certificate is the admin's of KUBECONFIG.
    Config config = new ConfigBuilder(ClientConfigs.withoutTokenRefreshForCertificates(Config.autoConfigure(null)))
        .withMasterUrl(this.url).withTrustCerts(true)
        .withDisableHostnameVerification(true).withRequestTimeout(60_000).build();
    this.client = new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The text of /metrics; fails with the endpoint named when it cannot be read. */
  String metrics() {
    String text = client.raw(url + "/metrics");
    if (text == null) {
      throw new IllegalStateException("kube-controller-manager's " + url + "/metrics answered nothing (is its "
          + "secure port there, and may the KUBECONFIG user read /metrics?)");
    }
    return text;
  }

  /** Whether /metrics can be read; the reason is logged once when not. */
  boolean available() {
    try {
      metrics();
      return true;
    } catch (RuntimeException e) {
      log.warn("kube-controller-manager's metrics not readable at {}: {}; its CPU and heap are not reported",
          url, e.getMessage());
      return false;
    }
  }

  double cpuSeconds() {
    return Prom.sum(metrics(), "process_cpu_seconds_total", null);
  }

  /** Requests its clients (every controller's) have sent, from client-go's rest_client_requests_total. */
  double requests() {
    return Prom.sum(metrics(), "rest_client_requests_total", null);
  }

  /** Go heap in use by live objects right after a forced collection. */
  double heapAfterGc() throws InterruptedException {
    client.raw(url + "/debug/pprof/heap?gc=1");
    Thread.sleep(200);
    return Prom.sum(metrics(), "go_memstats_heap_alloc_bytes", null);
  }

  /**
   * Waits until the garbage collector's graph builder has taken in at least {@code adds} changes in all
   * and has none waiting: its graph then holds every object created before.
   */
  void awaitGraphSettled(double adds, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      String m = metrics();
      double added = Prom.sum(m, "workqueue_adds_total", GRAPH_QUEUE);
      double depth = Prom.sum(m, "workqueue_depth", GRAPH_QUEUE);
      if (added >= adds && depth == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("kube-controller-manager's garbage collector took in " + Math.round(added)
            + " graph changes (" + Math.round(depth) + " waiting), expected at least " + Math.round(adds) + " within "
            + timeoutSeconds + " s");
      }
      Thread.sleep(500);
    }
  }

  double graphChanges() {
    return Prom.sum(metrics(), "workqueue_adds_total", GRAPH_QUEUE);
  }

  @Override
  public void close() {
    client.close();
  }
}
