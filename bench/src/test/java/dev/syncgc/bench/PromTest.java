package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Counters across a run: what the operator's /metrics say after less what they said before. */
class PromTest {
  private static final String BEFORE = """
      # TYPE syncgc_api_requests_total counter
      syncgc_api_requests_total{verb="delete"} 10.0
      syncgc_api_requests_total{verb="get"} 4.0
      """;
  private static final String AFTER = """
      syncgc_api_requests_total{verb="delete"} 25.0
      syncgc_api_requests_total{verb="get"} 4.0
      syncgc_api_requests_total{verb="patch"} 3.0
      syncgc_deletions_finished_total{outcome="timed_out"} 1.0
      """;

  @Test
  void deltaCountsAMetricFirstSeenAfterInFullAndIsNaNWithoutOne() {
    assertEquals(18.0, Prom.delta(BEFORE, AFTER, "syncgc_api_requests_total", null));
    assertEquals(1.0, Prom.delta(BEFORE, AFTER, "syncgc_deletions_finished_total", "outcome=\"timed_out\""));
    assertTrue(Double.isNaN(Prom.delta(BEFORE, AFTER, "process_cpu_seconds_total", null)));
  }

  @Test
  void deltaByLabelKeepsTheValuesThatChangedInTheirOrder() {
    assertEquals(Map.of("delete", 15.0, "patch", 3.0),
        Prom.deltaByLabel(BEFORE, AFTER, "syncgc_api_requests_total", "verb"));
    assertEquals("[delete, patch]",
        Prom.deltaByLabel(BEFORE, AFTER, "syncgc_api_requests_total", "verb").keySet().toString());
  }
}
