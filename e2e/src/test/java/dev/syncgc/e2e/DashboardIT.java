package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.MonitoringPack.DASHBOARD_VALUES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.Helm.Rendered;
import dev.syncgc.e2e.support.MonitoringPack;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.PromQl;
import dev.syncgc.e2e.support.Promtool;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's Grafana dashboard ({@code metrics.dashboard}): a ConfigMap for Grafana's sidecar,
 * rendered only when enabled, holding every {@code helm/syncgc/dashboards/*.json} as valid JSON whose
 * queries are valid PromQL over the syncgc metrics. That those metrics exist in a real scrape is
 * {@link MonitoringScrapeIT}'s part.
 */
class DashboardIT {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();
  private static Helm helm;

  @BeforeAll
  static void findHelm() {
    helm = Helm.forChart();
  }

  @Test
  void noDashboardUnlessEnabled() {
    Rendered r = helm.render();
    assertTrue(r.all(ConfigMap.class).isEmpty(), r.kinds().toString());
  }

  @Test
  void enabledRendersAConfigMapTheSidecarPicksUpWithEveryDashboardFile() throws IOException {
    ConfigMap map = helm.render("--set", DASHBOARD_VALUES).one(ConfigMap.class);
    assertEquals("1", map.getMetadata().getLabels().get("grafana_dashboard"));
    assertEquals(Helm.NAMESPACE, map.getMetadata().getNamespace());
    Set<String> files = new TreeSet<>();
    try (Stream<Path> dir = Files.list(helm.chart().resolve("dashboards"))) {
      dir.filter(p -> p.toString().endsWith(".json")).forEach(p -> files.add(p.getFileName().toString()));
    }
    assertFalse(files.isEmpty());
    assertEquals(files, map.getData().keySet());
    for (String file : files) {
      assertEquals(Files.readString(helm.chart().resolve("dashboards").resolve(file)).strip(),
          map.getData().get(file).strip(), file + " is shipped unchanged");
    }
  }

  @Test
  void labelsAnnotationsAndNamespaceAreConfigurable() {
    ConfigMap map = helm.renderValues("""
        metrics:
          dashboard:
            enabled: true
            labels: {grafana_dashboard: null, dashboards: syncgc}
            annotations: {grafana_folder: Operators}
            namespace: monitoring
        """).one(ConfigMap.class);
    assertEquals("syncgc", map.getMetadata().getLabels().get("dashboards"));
    assertFalse(map.getMetadata().getLabels().containsKey("grafana_dashboard"), map.getMetadata().getLabels().toString());
    assertEquals("Operators", map.getMetadata().getAnnotations().get("grafana_folder"));
    assertEquals("monitoring", map.getMetadata().getNamespace());
  }

  @Test
  void dashboardShowsDeletionsDurationsGraphCyclesQueueHoldsApiRequestsLatencyAndHeap() {
    Map<String, Object> dashboard = onlyDashboard();
    assertFalse(((String) dashboard.get("uid")).isBlank());
    List<Map<String, Object>> panels = MonitoringPack.panels(dashboard);
    Set<Object> ids = new HashSet<>();
    for (Map<String, Object> panel : panels) {
      assertTrue(ids.add(panel.get("id")), "panel id twice: " + panel.get("id"));
      assertTrue(panel.containsKey("gridPos"), "gridPos of " + panel.get("title"));
      if (!"row".equals(panel.get("type"))) {
        Map<String, Object> datasource = MonitoringPack.cast(panel.get("datasource"));
        assertEquals("${datasource}", datasource.get("uid"), "datasource of " + panel.get("title"));
      }
    }
    String all = String.join("\n", MonitoringPack.queries(dashboard));
    for (String wanted : List.of("syncgc_deletions_started_total", "sum by (outcome) (rate(syncgc_deletions_finished_total",
        "syncgc_deletions_in_progress", "max(syncgc_deletions_oldest_age_seconds{job=~\"$job\"})",
        "histogram_quantile(0.99, sum by (le) (rate(syncgc_deletion_duration_seconds_bucket",
        "syncgc_graph_objects", "syncgc_cycles_found_total", "syncgc_invalid_annotations_total",
        "sum by (verb, code) (rate(syncgc_api_requests_total", "jvm_memory_used_bytes{job=~\"$job\",area=\"heap\"}",
        "sum by (instance) (syncgc_queue_depth{job=~\"$job\"})",
        "histogram_quantile(0.99, sum by (le) (rate(syncgc_queue_duration_seconds_bucket",
        "sum by (instance) (syncgc_in_use_holds{job=~\"$job\"})",
        "histogram_quantile(0.5, sum by (le, verb) (rate(syncgc_api_request_duration_seconds_bucket",
        "histogram_quantile(0.99, sum by (le, verb) (rate(syncgc_api_request_duration_seconds_bucket")) {
      assertTrue(all.contains(wanted), "no panel queries " + wanted + "; queries:\n" + all);
    }
  }

  /** Each query, its Grafana variables replaced, is a recording rule {@code promtool check rules} accepts. */
  @Test
  void everyQueryIsValidPromQl(@TempDir Path dir) throws IOException {
    List<String> queries = MonitoringPack.queries(onlyDashboard());
    List<Map<String, Object>> rules = new ArrayList<>();
    for (String query : queries) {
      PromQl.selectors(query); // readable by the scrape check
      String expr = query.replace("$__rate_interval", "2m").replace("$__range", "6h").replace("$job", ".*");
      assertFalse(expr.contains("$"), "unknown Grafana variable in " + query);
      rules.add(Map.of("record", "syncgc_dashboard:query" + rules.size(), "expr", expr));
    }
    Path file = dir.resolve("dashboard.rules.yaml");
    Files.writeString(file, YAML.asYaml(Map.of("groups", List.of(Map.of("name", "dashboard", "rules", rules)))));
    ProcessRunner.Result result = Promtool.find().checkRules(file);
    assertTrue(result.ok() && result.output().contains("SUCCESS: " + queries.size() + " rules found"), result.describe());
  }

  private static Map<String, Object> onlyDashboard() {
    Map<String, Map<String, Object>> dashboards = MonitoringPack.dashboards(helm.render("--set", DASHBOARD_VALUES));
    assertEquals(1, dashboards.size(), dashboards.keySet().toString());
    return dashboards.values().iterator().next();
  }
}
