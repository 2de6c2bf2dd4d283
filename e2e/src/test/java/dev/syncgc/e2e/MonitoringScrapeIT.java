package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.MonitoringPack.DASHBOARD_VALUES;
import static dev.syncgc.e2e.support.MonitoringPack.RULE_VALUES;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.MonitoringPack;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.RunningOperator;
import dev.syncgc.e2e.support.PromQl;
import dev.syncgc.e2e.support.PromQl.Selector;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's operations pack against the real cluster. Every series its alerts and dashboard query
 * is one the running operator really exports:
 * each metric name is in a scrape of its {@code /metrics}, and each label matcher names a label (and
 * for {@code label="value"}, a value) that scrape has. The scrape is taken after a synchronous
 * deletion, so that the counters created on first use (API requests) are there.
 */
@ExtendWith(TestNamespace.Extension.class)
class MonitoringScrapeIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** Made by Prometheus for each scrape target, not exported by the operator. */
  private static final Set<String> PROMETHEUS_SERIES = Set.of("up");
  /** Target labels Prometheus adds to every series it scrapes. */
  private static final Set<String> TARGET_LABELS = Set.of("job", "namespace", "instance", "pod", "service",
      "endpoint", "container");

  private static RunningOperator operator;
  private final KubernetesClient client = TestCluster.get().client();
  private final Helm helm = Helm.forChart();

  @BeforeAll
  static void operator() {
    operator = SharedOperator.get();
  }

  @Test
  void everySeriesTheAlertsSelectIsExported(TestNamespace ns) {
    Metrics scrape = scrapeAfterADeletion(ns);
    List<Selector> selectors = new ArrayList<>();
    for (Map<String, Object> rule : MonitoringPack.rules(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES)))) {
      selectors.addAll(PromQl.selectors((String) rule.get("expr")));
    }
    assertExported(selectors, scrape);
    assertTrue(selectors.stream().anyMatch(s -> s.metric().equals("up")), "the operator-down alert reads up");
  }

  @Test
  void everySeriesTheDashboardQueriesIsExported(TestNamespace ns) {
    Metrics scrape = scrapeAfterADeletion(ns);
    List<Selector> selectors = new ArrayList<>();
    for (Map<String, Object> dashboard : MonitoringPack.dashboards(helm.render("--set", DASHBOARD_VALUES)).values()) {
      MonitoringPack.queries(dashboard).forEach(q -> selectors.addAll(PromQl.selectors(q)));
      MonitoringPack.variableMetrics(dashboard).forEach(m -> selectors.add(new Selector(m, Map.of(), Set.of())));
    }
    assertExported(selectors, scrape);
  }

  /** The API server takes the dashboard ConfigMap as rendered (a server-side dry run). */
  @Test
  void dashboardConfigMapIsAcceptedByTheApiServer(TestNamespace ns) {
    ConfigMap map = helm.render("--set", DASHBOARD_VALUES).one(ConfigMap.class);
    map.getMetadata().setNamespace(ns.name());
    ConfigMap accepted = client.resource(map).dryRun().create();
    assertEquals(map.getData().keySet(), accepted.getData().keySet());
    assertEquals("1", accepted.getMetadata().getLabels().get("grafana_dashboard"));
    assertNull(client.configMaps().inNamespace(ns.name()).withName(map.getMetadata().getName()).get(),
        "a dry run creates nothing");
  }

  private static void assertExported(List<Selector> selectors, Metrics scrape) {
    assertTrue(selectors.size() > 3, "selectors found: " + selectors);
    List<String> missing = new ArrayList<>();
    for (Selector s : selectors) {
      if (PROMETHEUS_SERIES.contains(s.metric())) {
        continue;
      }
      if (!scrape.names().contains(s.metric())) {
        missing.add(s.metric());
        continue;
      }
      for (String label : s.labels()) {
        if (!TARGET_LABELS.contains(label) && !scrape.hasLabel(s.metric(), label)) {
          missing.add(s.metric() + " with label " + label);
        }
      }
      s.equalTo().forEach((label, value) -> {
        if (!TARGET_LABELS.contains(label) && scrape.sum(s.metric(), Map.of(label, value)).isEmpty()) {
          missing.add(s.metric() + "{" + label + "=\"" + value + "\"}");
        }
      });
    }
    assertTrue(missing.isEmpty(), "not in the operator's /metrics: " + missing + "; it has " + scrape.names());
  }

  /** A synchronous deletion of an owner and its dependent, then a scrape that counts it. */
  private Metrics scrapeAfterADeletion(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();
    Widgets.widget(client, ns.name(), "owner").delete();
    await("owner gone").atMost(DEADLINE).until(() -> Widgets.widget(client, ns.name(), "owner").get() == null);
    AtomicReference<Metrics> last = new AtomicReference<>();
    try {
      await("deletion counted").atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
        last.set(Metrics.parse(operator.metrics()));
        return last.get().sum("syncgc_deletion_duration_seconds_count", Map.of()).orElse(0) > 0
            && last.get().sum("syncgc_api_requests_total", Map.of("verb", "delete")).isPresent();
      });
    } catch (RuntimeException e) {
      throw new AssertionError("the deletion is not in the scrape: " + (last.get() == null ? "no scrape"
          : last.get().lines("syncgc_deletion_duration_seconds_count") + " " + last.get().lines("syncgc_api_requests_total")), e);
    }
    return last.get();
  }
}
