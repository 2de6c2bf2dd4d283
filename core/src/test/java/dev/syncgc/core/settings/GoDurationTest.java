package dev.syncgc.core.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Provide;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "90s, PT1M30S",
    "5m, PT5M",
    "1h30m, PT1H30M",
    "1.5h, PT1H30M",
    "500ms, PT0.5S",
    "2h45m30s, PT2H45M30S",
    ".5s, PT0.5S",
    "250us, PT0.00025S",
    "1ns, PT0.000000001S",
  })
  void parsesGoDurations(String text, Duration expected) {
    assertEquals(expected, GoDuration.parse(text));
  }

  @ParameterizedTest(name = "rejects \"{0}\"")
  @ValueSource(strings = {"", "10", "-5s", "5x", "0s", "s", "1h 30m"})
  void rejectsWhatIsNotAPositiveDuration(String text) {
    assertThrows(IllegalArgumentException.class, () -> GoDuration.parse(text));
  }

  @ParameterizedTest(name = "rejects \"{0}\"")
  @ValueSource(strings = {"0.5ns", ".1ns", "0.0000000000001h", "0.5ns0.5ns"})
  void rejectsDurationsThatTruncateToZero(String text) {
    assertThrows(IllegalArgumentException.class, () -> GoDuration.parse(text));
  }

  @Test
  void rejectsDurationsLongerThanJavaNanosCanHold() {
    assertThrows(IllegalArgumentException.class, () -> GoDuration.parse("9999999h"));
  }

  @Property(tries = 300)
  void formattedComponentsParseToTheirExactSum(
      @ForAll @IntRange(max = 10_000) int h,
      @ForAll @IntRange(max = 10_000) int m,
      @ForAll @IntRange(max = 100_000) int s,
      @ForAll @IntRange(max = 999) int ms,
      @ForAll boolean withHours,
      @ForAll boolean withMinutes,
      @ForAll boolean withSeconds,
      @ForAll boolean withMillis) {
    StringBuilder text = new StringBuilder();
    Duration expected = Duration.ZERO;
    if (withHours) {
      text.append(h).append('h');
      expected = expected.plusHours(h);
    }
    if (withMinutes) {
      text.append(m).append('m');
      expected = expected.plusMinutes(m);
    }
    if (withSeconds) {
      text.append(s).append('s');
      expected = expected.plusSeconds(s);
    }
    if (withMillis) {
      text.append(ms).append("ms");
      expected = expected.plusMillis(ms);
    }
    Assume.that(expected.compareTo(Duration.ZERO) > 0);
    assertEquals(expected, GoDuration.parse(text.toString()), text.toString());
  }

  // --- GoDuration.SYNTAX, the API server's side (the CRD's rule on spec.timeout, the admission policy)

  private static final Pattern SYNTAX = Pattern.compile(GoDuration.SYNTAX);

  /**
   * The rule the API server runs is {@code self.matches(SYNTAX) && duration(self) > duration('0s')}:
   * whatever parse takes matches SYNTAX, and what SYNTAX lets through that parse refuses is exactly
   * what the duration() half refuses (zero after truncation to whole nanoseconds, or too long). The
   * e2e test PolicySchemaIT sends the same samples to a real API server.
   */
  @Test
  void syntaxAgreesWithParseOnEverySample() {
    for (String text : SettingSamples.DURATIONS) {
      assertAgree(text);
    }
  }

  @Property(tries = 2000)
  void syntaxAgreesWithParseOnStringsMadeOfDurationPieces(@ForAll("durationish") String text) {
    assertAgree(text);
  }

  @Provide
  Arbitrary<String> durationish() {
    // pieces of durations, right and wrong, so that a good share of the strings are near misses
    return Arbitraries.of("0", "1", "00", "12", "9999999", ".", "5.", ".5", "0.0", "ns", "us", "µs", "μs", "ms", "s",
        "m", "h", "H", "d", "x", " ", "-", "+").list().ofMaxSize(6).map(pieces -> String.join("", pieces));
  }

  private static void assertAgree(String text) {
    boolean matches = SYNTAX.matcher(text).matches();
    String refusal = null;
    try {
      GoDuration.parse(text);
    } catch (IllegalArgumentException e) {
      refusal = e.getMessage();
    }
    if (refusal == null) {
      assertTrue(matches, "parse takes '" + text + "' but SYNTAX does not match it");
    } else if (matches) {
      assertTrue(refusal.endsWith("must be greater than zero") || refusal.endsWith("is too long"),
          "SYNTAX matches '" + text + "', which parse refuses for a reason duration() > 0s does not cover: "
              + refusal);
    }
  }
}
