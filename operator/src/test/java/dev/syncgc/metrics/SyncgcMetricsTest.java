package dev.syncgc.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.kube.CallCounts;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SyncgcMetricsTest {

  @Test
  void theOldestDeletionsAgeIsExportedInSecondsUnderItsPrometheusName() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    AtomicReference<Number> age = new AtomicReference<>(0.0);
    new SyncgcMetrics(registry).gauges(() -> 2, age::get, () -> 10, () -> 9, () -> 3, () -> 4);

    String scrape = registry.scrape();
    assertTrue(scrape.contains("\nsyncgc_deletions_oldest_age_seconds 0.0\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_deletions_in_progress 2.0\n"), scrape);
    age.set(1860.25);
    scrape = registry.scrape();
    assertTrue(scrape.contains("\nsyncgc_deletions_oldest_age_seconds 1860.25\n"), scrape);
    assertTrue(scrape.contains("# TYPE syncgc_deletions_oldest_age_seconds gauge"), scrape);
  }

  @Test
  void theQueueDepthAndTheUnseenOwnersAreExported() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new SyncgcMetrics(registry).gauges(() -> 2, () -> 0, () -> 10, () -> 9, () -> 3, () -> 4);

    String scrape = registry.scrape();
    assertTrue(scrape.contains("\nsyncgc_graph_unseen_owners 3.0\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_queue_depth 4.0\n"), scrape);
  }

  @Test
  void kubeApisCallsAreCountedUnderTheirPrometheusNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CallCounts counts = new SyncgcMetrics(registry);
    counts.apiRequest("delete", 429);
    counts.apiRequest("delete", 429);
    counts.apiRequest("delete", 200);
    counts.callNotSent("patch");

    String scrape = registry.scrape();
    assertTrue(scrape.contains("\nsyncgc_api_requests_total{code=\"429\",verb=\"delete\"} 2.0\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_api_requests_total{code=\"200\",verb=\"delete\"} 1.0\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_api_calls_not_sent_total{verb=\"patch\"} 1.0\n"), scrape);
  }

  @Test
  void latencyLeadershipWatchRestartsDiscoveryAndPoliciesAreExportedUnderTheirPrometheusNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SyncgcMetrics metrics = new SyncgcMetrics(registry);
    AtomicReference<Boolean> leading = new AtomicReference<>(false);
    metrics.leader(leading::get);
    metrics.apiLatency("delete", java.time.Duration.ofMillis(30));
    metrics.watchRestarts("Deployment.apps", java.util.List.of("failed", "silent"));
    metrics.watchRestarted("Deployment.apps", "failed");
    metrics.watchRestarted("Deployment.apps", "failed");
    metrics.discoveryFailures(() -> 3);
    metrics.policiesNotReady(() -> 1);

    String scrape = registry.scrape();
    assertTrue(scrape.contains("\nsyncgc_leader 0.0\n"), scrape);
    assertTrue(scrape.contains("# TYPE syncgc_api_request_duration_seconds histogram"), scrape);
    assertTrue(scrape.contains("\nsyncgc_api_request_duration_seconds_count{verb=\"delete\"} 1\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_watch_restarts_total{kind=\"Deployment.apps\",reason=\"failed\"} 2.0\n"),
        scrape);
    assertTrue(scrape.contains("\nsyncgc_watch_restarts_total{kind=\"Deployment.apps\",reason=\"silent\"} 0.0\n"),
        "at 0 from the start: " + scrape);
    assertTrue(scrape.contains("\nsyncgc_discovery_failures_total 3.0\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_policies_not_ready 1.0\n"), scrape);
    leading.set(true);
    assertTrue(registry.scrape().contains("\nsyncgc_leader 1.0\n"));
  }

  @Test
  void buildInfoIsOneWithTheVersionTheRevisionAndTheJavaVersion() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new SyncgcMetrics(registry);
    SyncgcMetrics.buildInfo(registry.getPrometheusRegistry(), "1.2.3", " 0123abc\n");

    String scrape = registry.scrape();
    String java = System.getProperty("java.version");
    assertTrue(scrape.contains("# TYPE syncgc_build_info gauge\n"), scrape);
    assertTrue(scrape.contains("\nsyncgc_build_info{java_version=\"" + java + "\",revision=\"0123abc\",version=\"1.2.3\"} 1\n"),
        scrape);
    // OpenMetrics, which Prometheus asks for first, has an info type of its own
    String openMetrics = registry.scrape("application/openmetrics-text; version=1.0.0; charset=utf-8");
    assertTrue(openMetrics.contains("# TYPE syncgc_build info\n"), openMetrics);
    assertTrue(openMetrics.contains("\nsyncgc_build_info{java_version=\"" + java + "\",revision=\"0123abc\",version=\"1.2.3\"} 1\n"),
        openMetrics);
  }

  @Test
  void buildInfoSaysUnknownForWhatItIsNotGiven() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SyncgcMetrics.buildInfo(registry.getPrometheusRegistry(), null, "");

    String scrape = registry.scrape();
    assertTrue(scrape.contains("revision=\"unknown\",version=\"unknown\"} 1\n"), scrape);
  }
}
