package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.MonitoringPack.RULE_VALUES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.Helm.Rendered;
import dev.syncgc.e2e.support.MonitoringPack;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.Promtool;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The chart's PrometheusRule ({@code metrics.prometheusRule}): rendered only when enabled, what its
 * values change, and its alerts checked ({@code promtool check rules}) and unit-tested on synthetic
 * series ({@code promtool test rules}, {@code e2e/src/test/resources/promtool/syncgc-alerts-test.yaml}).
 */
class AlertRulesIT {
  private static final Set<String> ALERTS = Set.of("SyncgcDeletionTimedOut", "SyncgcDeletionInProgressTooLong",
      "SyncgcInUseHoldTooLong", "SyncgcOperatorDown", "SyncgcApiErrorsHigh", "SyncgcDiscoveryFailing",
      "SyncgcWatchesRestarting", "SyncgcPolicyNotReady");
  private static final String DEFAULT_SELECTOR = "job=\"gc-syncgc-metrics\",namespace=\"syncgc-system\"";
  private static final String UNIT_TESTS = "syncgc-alerts-test.yaml";
  private static final String RULES_FILE = "syncgc-alerts.rules.yaml";
  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private static Helm helm;
  private static Promtool promtool;

  @BeforeAll
  static void tools() {
    helm = Helm.forChart();
    promtool = Promtool.find();
  }

  @Test
  void chartWithAlertsAndDashboardPassesStrictLint() {
    ProcessRunner.Result result = helm.lint("--set", RULE_VALUES, "--set", MonitoringPack.DASHBOARD_VALUES);
    assertTrue(result.ok() && result.stdout().contains("0 chart(s) failed"), result.describe());
    assertFalse(result.stdout().contains("[WARNING]") || result.stdout().contains("[ERROR]"), result.describe());
  }

  @Test
  void noPrometheusRuleUnlessEnabled() {
    Rendered r = helm.render();
    assertTrue(r.ofKind("PrometheusRule").isEmpty(), r.kinds().toString());
  }

  @Test
  void enabledRendersTheFourAlertsOnTheReleasesSeriesEachWithSeverityAndWhereToLook() {
    GenericKubernetesResource rule = MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES));
    assertEquals("monitoring.coreos.com/v1", rule.getApiVersion());
    assertEquals(Helm.NAMESPACE, rule.getMetadata().getNamespace());
    assertEquals("syncgc", rule.getMetadata().getLabels().get("app.kubernetes.io/name"));

    Map<String, Map<String, Object>> alerts = byAlert(rule);
    assertEquals(ALERTS, alerts.keySet());
    alerts.forEach((name, alert) -> {
      String expr = (String) alert.get("expr");
      assertTrue(expr.contains("{" + DEFAULT_SELECTOR), name + " selects the release's job: " + expr);
      Map<String, String> labels = cast(alert.get("labels"));
      assertTrue(Set.of("warning", "critical").contains(labels.get("severity")), name + " labels " + labels);
      Map<String, String> annotations = cast(alert.get("annotations"));
      assertFalse(annotations.getOrDefault("summary", "").isBlank(), name + " summary");
      assertTrue(annotations.getOrDefault("description", "").contains("kubectl"),
          name + " description says where to look: " + annotations);
    });
    assertEquals("critical", labelsOf(alerts.get("SyncgcOperatorDown")).get("severity"));
  }

  /**
   * As kube-prometheus does: every alert links to its runbook, a page of docs/runbooks/ that says what
   * the alert means, the commands that find the cause, and the fix.
   */
  @Test
  void everyAlertLinksToItsRunbookPageWhichSaysHowToDiagnoseAndFix() throws IOException {
    Map<String, Map<String, Object>> alerts = byAlert(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES)));
    Path runbooks = dev.syncgc.e2e.support.TestCluster.repoRoot().resolve("docs/runbooks");
    String index = Files.readString(runbooks.resolve("README.md"));
    for (String name : ALERTS) {
      Map<String, String> annotations = cast(alerts.get(name).get("annotations"));
      // by default pinned to the release's tag: the runbook of the alerts installed, not of main
      assertEquals("https://github.com/syncgc/syncgc/blob/v" + helm.appVersion() + "/docs/runbooks/" + name + ".md",
          annotations.get("runbook_url"), name);
      Path page = runbooks.resolve(name + ".md");
      assertTrue(Files.isRegularFile(page), "no runbook " + page);
      String text = Files.readString(page);
      assertTrue(text.startsWith("# " + name + "\n"), page + " is titled with the alert's name");
      for (String section : List.of("## Meaning", "## Impact", "## Diagnosis", "## Fix")) {
        assertTrue(text.contains("\n" + section + "\n"), page + " has no section " + section);
      }
      String diagnosis = text.substring(text.indexOf("## Diagnosis"), text.indexOf("## Fix"));
      assertTrue(diagnosis.contains("```sh") || diagnosis.contains("```promql"), page + ": commands to diagnose");
      assertTrue(index.contains("(" + name + ".md)"), "docs/runbooks/README.md lists " + name);
    }

    Map<String, Map<String, Object>> custom = byAlert(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES,
        "--set", "metrics.prometheusRule.runbookUrl=https://wiki.example.com/syncgc/")));
    custom.forEach((name, alert) -> assertEquals("https://wiki.example.com/syncgc/" + name + ".md",
        MonitoringPack.<Map<String, String>>cast(alert.get("annotations")).get("runbook_url")));
    helm.assertSchemaRejects("metrics.prometheusRule.runbookUrl=docs/runbooks", "/metrics/prometheusRule/runbookUrl");
  }

  @Test
  void valuesSetThresholdsWindowsForLabelsAndTheSelector() {
    Rendered r = helm.renderValues("""
        metrics:
          prometheusRule:
            enabled: true
            labels: {release: prometheus}
            selector: 'job="syncgc",cluster="prod"'
            alertLabels: {team: platform, severity: info}
            alerts:
              deletionTimedOut: {window: 1h, for: 2m, severity: critical, labels: {page: "yes"}}
              deletionInProgressTooLong: {threshold: 2h}
              operatorDown: {enabled: false}
              apiErrors: {ratio: 0.2, window: 30m, for: 15m}
              watchesRestarting: {threshold: 20, window: 30m}
        """);
    GenericKubernetesResource rule = MonitoringPack.prometheusRule(r);
    assertEquals("prometheus", rule.getMetadata().getLabels().get("release"));
    Map<String, Map<String, Object>> alerts = byAlert(rule);
    assertEquals(Set.of("SyncgcDeletionTimedOut", "SyncgcDeletionInProgressTooLong", "SyncgcInUseHoldTooLong",
        "SyncgcApiErrorsHigh", "SyncgcDiscoveryFailing", "SyncgcWatchesRestarting", "SyncgcPolicyNotReady"),
        alerts.keySet());

    Map<String, Object> timedOut = alerts.get("SyncgcDeletionTimedOut");
    assertTrue(((String) timedOut.get("expr")).contains("{job=\"syncgc\",cluster=\"prod\",outcome=\"timed_out\"}[1h]"),
        timedOut.toString());
    assertEquals("2m", timedOut.get("for"));
    assertEquals(Map.of("severity", "critical", "team", "platform", "page", "yes"), labelsOf(timedOut),
        "an alert's own severity wins over alertLabels");

    String inProgress = (String) alerts.get("SyncgcDeletionInProgressTooLong").get("expr");
    assertEquals("max(syncgc_deletions_oldest_age_seconds{job=\"syncgc\",cluster=\"prod\"}) > 7200", inProgress.strip());

    Map<String, Object> apiErrors = alerts.get("SyncgcApiErrorsHigh");
    assertTrue(((String) apiErrors.get("expr")).contains("[30m]"), apiErrors.toString());
    assertTrue(((String) apiErrors.get("expr")).trim().endsWith("> 0.2"), apiErrors.toString());
    assertEquals("15m", apiErrors.get("for"));
    assertEquals(Map.of("severity", "warning", "team", "platform"), labelsOf(apiErrors));

    String restarts = (String) alerts.get("SyncgcWatchesRestarting").get("expr");
    assertEquals("sum by (kind) (increase(syncgc_watch_restarts_total{job=\"syncgc\",cluster=\"prod\"}[30m])) > 20",
        restarts.strip());
  }

  @Test
  void everyAlertDisabledIsRefusedWithTheFix() {
    ProcessRunner.Result result = helm.template("", "--set", RULE_VALUES,
        "--set", "metrics.prometheusRule.alerts.deletionTimedOut.enabled=false",
        "--set", "metrics.prometheusRule.alerts.deletionInProgressTooLong.enabled=false",
        "--set", "metrics.prometheusRule.alerts.inUseHoldTooLong.enabled=false",
        "--set", "metrics.prometheusRule.alerts.operatorDown.enabled=false",
        "--set", "metrics.prometheusRule.alerts.apiErrors.enabled=false",
        "--set", "metrics.prometheusRule.alerts.discoveryFailing.enabled=false",
        "--set", "metrics.prometheusRule.alerts.watchesRestarting.enabled=false",
        "--set", "metrics.prometheusRule.alerts.policyNotReady.enabled=false");
    assertFalse(result.ok(), result.describe());
    assertTrue(result.stderr().contains("metrics.prometheusRule.enabled=false"), result.describe());
  }

  /** The threshold, a Prometheus duration, is compared with a gauge in seconds. */
  @ParameterizedTest(name = "{0} is {1} s")
  @CsvSource(delimiter = '|', value = {
      "30m | 1800", "1h30m | 5400", "90s | 90", "1m5s | 65", "1d | 86400", "2w | 1209600", "1y | 31536000",
      "1d2h3m4s | 93784", "1500ms | 1.5", "1s5ms | 1.005", "10ms | 0.01",
  })
  void inProgressThresholdIsWrittenInSeconds(String threshold, String seconds) {
    Map<String, Map<String, Object>> alerts = byAlert(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES,
        "--set", "metrics.prometheusRule.alerts.deletionInProgressTooLong.threshold=" + threshold)));
    String expr = ((String) alerts.get("SyncgcDeletionInProgressTooLong").get("expr")).strip();
    assertEquals("max(syncgc_deletions_oldest_age_seconds{" + DEFAULT_SELECTOR + "}) > " + seconds, expr);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "metrics.prometheusRule.alerts.deletionInProgressTooLong.threshold=1h30 | /metrics/prometheusRule/alerts/deletionInProgressTooLong/threshold",
      "metrics.prometheusRule.alerts.apiErrors.ratio=0 | /metrics/prometheusRule/alerts/apiErrors/ratio",
      "metrics.prometheusRule.alerts.apiErrors.ratio=1.5 | /metrics/prometheusRule/alerts/apiErrors/ratio",
      "metrics.prometheusRule.alerts.deletionInProgressTooLong.threshold=0m | /metrics/prometheusRule/alerts/deletionInProgressTooLong/threshold",
      "metrics.prometheusRule.alerts.deletionTimedOut.window=1.5h | /metrics/prometheusRule/alerts/deletionTimedOut/window",
      "metrics.prometheusRule.alerts.deletionTimedOut.window=30m1h | /metrics/prometheusRule/alerts/deletionTimedOut/window",
      "metrics.prometheusRule.alerts.operatorDown.for=soon | /metrics/prometheusRule/alerts/operatorDown/for",
      "metrics.prometheusRule.alerts.operatorDwn.enabled=false | operatorDwn",
      "metrics.prometheusRule.alerts.apiErrors.severity= | /metrics/prometheusRule/alerts/apiErrors/severity",
      "metrics.prometheusRule.alerts.watchesRestarting.threshold=0 | /metrics/prometheusRule/alerts/watchesRestarting/threshold",
      "metrics.prometheusRule.alerts.discoveryFailing.window=0m | /metrics/prometheusRule/alerts/discoveryFailing/window",
  })
  void schemaRejectsBadValue(String set, String named) {
    helm.assertSchemaRejects(set, named);
  }

  @Test
  void renderedRulesPassPromtoolCheckWithDefaultAndCustomValues(@TempDir Path dir) throws IOException {
    Path defaults = writeRules(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES)), dir.resolve("a.yaml"), false);
    ProcessRunner.Result result = promtool.checkRules(defaults).assertOk();
    assertTrue(result.output().contains("SUCCESS: " + ALERTS.size() + " rules found"), result.describe());

    Path custom = writeRules(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES,
        "--set", "metrics.prometheusRule.selector=job=\"x\"",
        "--set", "metrics.prometheusRule.alerts.deletionTimedOut.window=1d",
        "--set", "metrics.prometheusRule.alerts.apiErrors.ratio=0.5",
        "--set", "metrics.prometheusRule.alerts.operatorDown.for=1h30m")), dir.resolve("b.yaml"), false);
    result = promtool.checkRules(custom).assertOk();
    assertTrue(result.output().contains("SUCCESS: " + ALERTS.size() + " rules found"), result.describe());
  }

  /**
   * The unit tests hold, and they cover each alert both firing and staying quiet. Descriptions are
   * left out of the rules under test (prose; {@code check rules} validates their templates), so the
   * tests compare labels and summaries, which carry the rendered values.
   */
  @Test
  void promtoolUnitTestsFireAndDoNotFireEachAlert(@TempDir Path dir) throws IOException {
    String tests;
    try (InputStream in = getClass().getResourceAsStream("/promtool/" + UNIT_TESTS)) {
      tests = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Files.writeString(dir.resolve(UNIT_TESTS), tests);
    // the runbook links the tests expect do not change with each appVersion
    writeRules(MonitoringPack.prometheusRule(helm.render("--set", RULE_VALUES,
        "--set", "metrics.prometheusRule.runbookUrl=https://github.com/syncgc/syncgc/blob/main/docs/runbooks")),
        dir.resolve(RULES_FILE), true);

    ProcessRunner.Result result = promtool.testRules(dir.resolve(UNIT_TESTS));
    assertTrue(result.ok() && result.output().contains("SUCCESS"), result.describe());

    Set<String> fire = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    Map<String, Object> file = YAML.unmarshal(tests, Map.class);
    for (Map<String, Object> group : MonitoringPack.<Map<String, Object>>listOf(file.get("tests"))) {
      for (Map<String, Object> test : MonitoringPack.<Map<String, Object>>listOf(group.get("alert_rule_test"))) {
        boolean fires = !MonitoringPack.listOf(test.get("exp_alerts")).isEmpty();
        (fires ? fire : quiet).add((String) test.get("alertname"));
      }
    }
    assertEquals(new TreeSet<>(ALERTS), fire, "alerts the unit tests see firing");
    assertEquals(new TreeSet<>(ALERTS), quiet, "alerts the unit tests see staying quiet");
  }

  /**
   * The false positive this alert had while it read only {@code syncgc_deletions_in_progress}: the
   * series of the unit test where a steady stream of short deletions keeps two owners in progress
   * (and the new rule stays quiet) made the old rule ({@code old-in-progress-rule.yaml}) fire at
   * each of that test's evaluation times.
   */
  @Test
  void theStreamOfShortDeletionsFiredTheRuleThatReadTheCount(@TempDir Path dir) throws IOException {
    Map<String, Object> stream = null;
    try (InputStream in = getClass().getResourceAsStream("/promtool/" + UNIT_TESTS)) {
      Map<String, Object> file = YAML.unmarshal(new String(in.readAllBytes(), StandardCharsets.UTF_8), Map.class);
      for (Map<String, Object> group : MonitoringPack.<Map<String, Object>>listOf(file.get("tests"))) {
        if (((String) group.get("name")).contains("steady stream of short deletions")) {
          stream = group;
        }
      }
    }
    assertTrue(stream != null, "the unit tests have the steady stream of short deletions");
    List<Map<String, Object>> evaluations = MonitoringPack.listOf(stream.get("alert_rule_test"));
    assertFalse(evaluations.isEmpty());
    for (Map<String, Object> evaluation : evaluations) {
      assertTrue(MonitoringPack.listOf(evaluation.get("exp_alerts")).isEmpty(), "quiet on the new rule: " + evaluation);
      evaluation.put("exp_alerts", List.of(Map.of("exp_labels", Map.of("severity", "warning",
          "job", "gc-syncgc-metrics", "namespace", "syncgc-system", "instance", "10.0.0.5:8080"))));
    }
    try (InputStream in = getClass().getResourceAsStream("/promtool/old-in-progress-rule.yaml")) {
      Files.write(dir.resolve("old.rules.yaml"), in.readAllBytes());
    }
    Path tests = dir.resolve("old-rule-test.yaml");
    Files.writeString(tests, YAML.asYaml(Map.of("rule_files", List.of("old.rules.yaml"),
        "evaluation_interval", "1m", "tests", List.of(stream))));

    ProcessRunner.Result result = promtool.testRules(tests);
    assertTrue(result.ok() && result.output().contains("SUCCESS"), result.describe());
  }

  // --- helpers

  /** Writes the PrometheusRule's groups as a Prometheus rule file. */
  private static Path writeRules(GenericKubernetesResource rule, Path file, boolean withoutDescriptions)
      throws IOException {
    Map<String, Object> spec = new HashMap<>(cast(rule.getAdditionalProperties().get("spec")));
    if (withoutDescriptions) {
      String yaml = YAML.asYaml(spec);
      spec = YAML.unmarshal(yaml, Map.class); // a deep copy
      for (Map<String, Object> group : MonitoringPack.<Map<String, Object>>listOf(spec.get("groups"))) {
        for (Map<String, Object> r : MonitoringPack.<Map<String, Object>>listOf(group.get("rules"))) {
          MonitoringPack.<Map<String, Object>>cast(r.get("annotations")).remove("description");
        }
      }
    }
    Files.writeString(file, YAML.asYaml(spec));
    return file;
  }

  private static Map<String, Map<String, Object>> byAlert(GenericKubernetesResource rule) {
    return MonitoringPack.rules(rule).stream().collect(Collectors.toMap(r -> (String) r.get("alert"),
        Function.identity(), (a, b) -> {
          throw new AssertionError("alert twice: " + a);
        }, LinkedHashMap::new));
  }

  private static Map<String, String> labelsOf(Map<String, Object> alert) {
    return cast(alert.get("labels"));
  }

  @SuppressWarnings("unchecked")
  private static <T> T cast(Object o) {
    return (T) o;
  }
}
