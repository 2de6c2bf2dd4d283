package dev.syncgc.e2e.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.syncgc.e2e.support.PromQl.Selector;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PromQlTest {
  @Test
  void findsSelectorsWithTheirMatchersInsideFunctionsAndAggregations() {
    List<Selector> found = PromQl.selectors("histogram_quantile(0.99, sum by (le) "
        + "(rate(syncgc_deletion_duration_seconds_bucket{job=~\"$job\",area=\"heap\"}[$__rate_interval])))");
    assertEquals(List.of(new Selector("syncgc_deletion_duration_seconds_bucket", Map.of("area", "heap"),
        Set.of("job", "area"))), found);
  }

  @Test
  void findsBareMetricNamesButNotFunctionsKeywordsLabelsOrDurations() {
    String expr = "min_over_time(a_total{job=\"x\"}[30m]) > 0 and b_gauge offset 30m > 0 "
        + "or sum without (instance) (rate(c_total[5m])) / on (job) group_left (pod) d_info unless absent(up == 1)";
    assertEquals(Set.of("a_total", "b_gauge", "c_total", "d_info", "up"), PromQl.metricNames(expr));
  }

  @Test
  void refusesWhatItCannotRead() {
    assertThrows(IllegalArgumentException.class, () -> PromQl.selectors("{__name__=~\"syncgc_.*\"}"));
    assertThrows(IllegalArgumentException.class, () -> PromQl.selectors("a{code=~\"5..\",job}"));
  }
}
