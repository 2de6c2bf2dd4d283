package dev.syncgc.core.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
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
  @ValueSource(strings = {"0.5ns", ".1ns", "0.0000000000001h"})
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
}
