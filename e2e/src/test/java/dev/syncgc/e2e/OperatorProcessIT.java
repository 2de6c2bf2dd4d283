package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.OperatorProcess;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operator jar starts as its own process against the test cluster and reports ready. */
class OperatorProcessIT {

  @Test
  void operatorConnectsAndServesHealthProbes() {
    try (OperatorProcess operator = OperatorProcess.start("operator-process")) {
      operator.awaitReady();

      assertEquals(200, operator.get("/healthz").statusCode());
      operator.awaitLog("connected");
      // syncgc_build_info: the jar's version; no SYNCGC_REVISION outside the image
      String metrics = operator.metrics();
      assertTrue(metrics.lines().anyMatch(l -> l.startsWith("syncgc_build_info{")
          && l.contains("revision=\"unknown\"") && l.contains("java_version=\"" + System.getProperty("java.version") + "\"")
          && !l.contains("version=\"unknown\"") && l.endsWith(" 1")), metrics);

      operator.kill();
      assertFalse(operator.isAlive());
    }
  }

  /** The chart's logFormat json: every line the operator prints is one JSON object (Elastic Common Schema). */
  @Test
  @SuppressWarnings("unchecked")
  void withLogFormatJsonEveryLineIsAJsonObject() {
    try (OperatorProcess operator = OperatorProcess.start("operator-process-json", List.of(),
        Map.of("SYNCGC_LOG_FORMAT", "json"))) {
      operator.awaitReady();
      operator.awaitLog("connected");
      operator.stop();

      KubernetesSerialization json = new KubernetesSerialization();
      String log = operator.log();
      // this run only: after OperatorProcess's own header line (the file keeps earlier runs)
      String run = log.substring(log.lastIndexOf("=== "));
      List<String> lines = run.lines().skip(1).toList();
      assertFalse(lines.isEmpty());
      boolean connected = false;
      for (String line : lines) {
        assertTrue(line.startsWith("{") && line.endsWith("}"), "not a JSON line: " + line);
        Map<String, Object> event = json.unmarshal(line, Map.class);
        for (String field : List.of("@timestamp", "log.level", "log.logger", "message", "process.thread.name")) {
          assertTrue(event.containsKey(field), field + " missing in " + line);
        }
        assertEquals("syncgc", event.get("service.name"), line);
        connected |= event.get("message").toString().startsWith("connected server=");
      }
      assertTrue(connected, "the start-up line is there: " + lines);
    }
  }
}
