package dev.syncgc.core.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the operator judges the samples the e2e tests send to the API server (SettingSamples): the
 * numeric annotations take what Java's trim() leaves of the value, an optional sign and ASCII digits
 * in the range of their type (a long for the grace period, which must not be negative; an int for the
 * deletion wave). AdmissionPolicyIT expects the chart's admission policy to refuse exactly the others.
 */
class SettingSamplesTest {

  @Test
  void gracePeriodSamples() {
    assertEquals(List.of("0", "30", "030", "+30", " 30 ", "\t30\n", "-0", "9223372036854775807",
        "0009223372036854775807"), validOf(Setting.GRACE_PERIOD));
  }

  @Test
  void deletionWaveSamples() {
    assertEquals(List.of("0", "5", "-3", "+3", " 7 ", "-0", "2147483647", "00000000002147483647", "-2147483648"),
        validOf(Setting.DELETION_WAVE));
  }

  @Test
  void otherDigitsThanAsciiAreNotANumber() {
    assertEquals("must be a whole number of seconds", Setting.GRACE_PERIOD.read("٣").problem());
    assertEquals(Map.entry(0, "must be a whole number; counts as 0"),
        Map.entry(Setting.DELETION_WAVE.read("٣").value().orElseThrow(), Setting.DELETION_WAVE.read("٣").problem()));
  }

  @Test
  void enumAndDurationSamples() {
    assertEquals(List.of("Synchronous", "Orphan", "Background"), validOf(Setting.PROPAGATION));
    assertEquals(List.of("Release", "Keep"), validOf(Setting.ON_TIMEOUT));
    assertEquals(List.of("90s", "1h30m", "250µs"), validOf(Setting.TIMEOUT));
    assertEquals(List.of("true", "false"), validOf(Setting.KEEP));
  }

  @Test
  void anInvalidKeepCountsAsKept() {
    assertEquals(Map.entry(true, "must be true or false; counts as true (kept)"),
        Map.entry(Setting.KEEP.read("yes").value().orElseThrow(), Setting.KEEP.read("yes").problem()));
  }

  @Test
  void everyAnnotationHasSamples() {
    assertEquals(Setting.ALL, List.copyOf(SettingSamples.ANNOTATION_VALUES.keySet()));
  }

  private static List<String> validOf(Setting<?> setting) {
    return SettingSamples.ANNOTATION_VALUES.get(setting).stream().filter(v -> SettingSamples.valid(setting, v)).toList();
  }
}
