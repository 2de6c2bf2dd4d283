package dev.syncgc.core.settings;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values that the Java parsers and the API server's rules must judge alike: a policy's
 * {@code spec.timeout} (the CRD's CEL rule, built on {@link GoDuration#SYNTAX}) and the
 * {@code syncgc.dev/} annotations (the chart's ValidatingAdmissionPolicy). The unit tests run them
 * through the parsers and the regular expression (GoDurationTest, SettingSamplesTest); the e2e tests
 * PolicySchemaIT and AdmissionPolicyIT through a real API server, each expecting a refusal exactly
 * where {@link #valid} says no.
 */
public final class SettingSamples {
  private SettingSamples() {}

  /** Durations as a policy's {@code timeout} or the {@code syncgc.dev/timeout} annotation give them. */
  public static final List<String> DURATIONS = List.of(
      // valid
      "90s", "5m", "1h30m", "1.5h", ".5s", "5.h", "500ms", "250us", "250µs", "1ns", "2h45m30s", "1h1h",
      "00001s", "2562047h", "2562047h47m16.854775807s", "2562047.788h", "1.000000001s",
      "0.333333333333333333333333h",
      // invalid: no unit, zero, below a nanosecond, signed, spaced, wrong case or unit, too long
      "", "0", "10", "soon", "0s", "0h0m0s", "0.5ns", ".1ns", "0.0000000000001h", "-5s", "+5s", "5x", "s",
      ".s", "5..s", "1.5.5h", "1e3s", "1h 30m", " 5m", "5m ", "5M", "1H", "1d", "250μs" /* Greek mu */,
      "１s" /* full-width digit */, "2562048h", "2562047h47m16.854775808s", "2562047.7883h", "9999999h",
      // Go truncates each part to whole nanoseconds: 0 + 0 (an exact sum would make 1ns)
      "0.5ns0.5ns");

  /** Values of each annotation the admission policy checks. */
  public static final Map<Setting<?>, List<String>> ANNOTATION_VALUES = annotationValues();

  private static Map<Setting<?>, List<String>> annotationValues() {
    Map<Setting<?>, List<String>> values = new LinkedHashMap<>();
    values.put(Setting.PROPAGATION, List.of("Synchronous", "Orphan", "Background", "synchronous", "Foreground",
        "", " Orphan", "Orphan "));
    values.put(Setting.TIMEOUT, List.of("90s", "1h30m", "250µs", "soon", "0s", "-5s", "1h 30m", "", "9999999h"));
    values.put(Setting.GRACE_PERIOD, List.of("0", "30", "030", "+30", " 30 ", "\t30\n", "-0", "-1",
        "9223372036854775807", "0009223372036854775807", "9223372036854775808", "99999999999999999999", "1.5",
        "30s", "", " ", "+", "٣" /* Arabic-Indic three */, "0x1F"));
    values.put(Setting.ON_TIMEOUT, List.of("Release", "Keep", "keep", "Never", ""));
    values.put(Setting.DELETION_WAVE, List.of("0", "5", "-3", "+3", " 7 ", "-0", "2147483647",
        "00000000002147483647", "2147483648", "-2147483648", "-2147483649", "1.5", "high", "", "٣"));
    values.put(Setting.USERS_FROM, List.of("team-a", "team-a, team-b", " team-a ,team-b,", "*", " * ", "*,*", "",
        ",", "a".repeat(63), "a".repeat(64), "Team-A", "team_a", "-team", "team-", "*, team-a", "team-a/x",
        "team a", "**"));
    values.put(Setting.KEEP, List.of("true", "false", "True", "TRUE", "yes", "1", "", " true", "true "));
    return values;
  }

  /** Whether the operator takes this value of the setting (a bad deletion wave counts as 0: not valid). */
  public static boolean valid(Setting<?> setting, String value) {
    return setting.read(value).problem() == null;
  }

  /** Whether {@link GoDuration#parse} takes this duration. */
  public static boolean validDuration(String text) {
    try {
      GoDuration.parse(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
