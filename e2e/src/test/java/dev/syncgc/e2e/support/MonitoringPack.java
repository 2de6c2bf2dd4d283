package dev.syncgc.e2e.support;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chart's operations pack as rendered by {@code helm template}: the PrometheusRule's alerting
 * rules and the Grafana dashboards' queries.
 */
public final class MonitoringPack {
  public static final String RULE_VALUES = "metrics.prometheusRule.enabled=true";
  public static final String DASHBOARD_VALUES = "metrics.dashboard.enabled=true";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\(\\s*([^,]+),");

  private MonitoringPack() {}

  /** The one PrometheusRule of a render. */
  public static GenericKubernetesResource prometheusRule(Helm.Rendered r) {
    List<HasMetadata> rules = r.ofKind("PrometheusRule");
    if (rules.size() != 1) {
      throw new AssertionError("expected one PrometheusRule: " + r.kinds());
    }
    return (GenericKubernetesResource) rules.get(0);
  }

  /** Every rule of every group of a PrometheusRule. */
  public static List<Map<String, Object>> rules(GenericKubernetesResource prometheusRule) {
    List<Map<String, Object>> rules = new ArrayList<>();
    List<Map<String, Object>> groups = prometheusRule.get("spec", "groups");
    for (Map<String, Object> group : groups) {
      rules.addAll(cast(group.get("rules")));
    }
    return rules;
  }

  /** The dashboards (file name to parsed JSON) of the one dashboard ConfigMap of a render. */
  public static Map<String, Map<String, Object>> dashboards(Helm.Rendered r) {
    List<ConfigMap> maps = r.all(ConfigMap.class);
    if (maps.size() != 1) {
      throw new AssertionError("expected one dashboard ConfigMap: " + r.kinds());
    }
    Map<String, Map<String, Object>> dashboards = new java.util.TreeMap<>();
    maps.get(0).getData().forEach((file, json) -> dashboards.put(file, parseJson(file, json)));
    return dashboards;
  }

  public static Map<String, Object> parseJson(String what, String json) {
    try {
      return JSON.readValue(json, new TypeReference<>() {});
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + what, e);
    }
  }

  /** Every panel of a dashboard, those nested in collapsed rows too. */
  public static List<Map<String, Object>> panels(Map<String, Object> dashboard) {
    List<Map<String, Object>> panels = new ArrayList<>();
    for (Map<String, Object> panel : MonitoringPack.<Map<String, Object>>listOf(dashboard.get("panels"))) {
      panels.add(panel);
      panels.addAll(listOf(panel.get("panels")));
    }
    return panels;
  }

  /** The PromQL of every panel target of a dashboard. */
  public static List<String> queries(Map<String, Object> dashboard) {
    List<String> queries = new ArrayList<>();
    for (Map<String, Object> panel : panels(dashboard)) {
      for (Map<String, Object> target : MonitoringPack.<Map<String, Object>>listOf(panel.get("targets"))) {
        queries.add((String) target.get("expr"));
      }
    }
    return queries;
  }

  /** The metrics the dashboard's template variables read ({@code label_values(metric, label)}). */
  public static List<String> variableMetrics(Map<String, Object> dashboard) {
    List<String> metrics = new ArrayList<>();
    Map<String, Object> templating = cast(dashboard.getOrDefault("templating", Map.of()));
    for (Map<String, Object> variable : MonitoringPack.<Map<String, Object>>listOf(templating.get("list"))) {
      if ("query".equals(variable.get("type"))) {
        Object query = variable.get("query");
        String text = query instanceof Map<?, ?> m ? (String) m.get("query") : (String) query;
        Matcher m = LABEL_VALUES.matcher(text);
        if (!m.find()) {
          throw new AssertionError("variable " + variable.get("name") + " is not label_values(metric, label): " + text);
        }
        metrics.add(m.group(1).trim());
      }
    }
    return metrics;
  }

  public static <T> List<T> listOf(Object o) {
    return o == null ? List.of() : cast(o);
  }

  @SuppressWarnings("unchecked")
  public static <T> T cast(Object o) {
    return (T) o;
  }
}
