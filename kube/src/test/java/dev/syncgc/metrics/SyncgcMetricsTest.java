package dev.syncgc.metrics;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
