package dev.syncgc.core.settings;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations written as Go and kubectl write them: {@code 90s}, {@code 5m}, {@code 1h30m}, {@code 1.5h}. */
public final class GoDuration {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  /**
   * The strings {@link #parse} reads, as one whole-string regular expression that means the same in
   * Java and in RE2 (the API server's CEL): the policy CRD's rule on {@code spec.timeout} and the
   * chart's admission policy use it, followed by {@code duration(...) > duration('0s')} for what it
   * lets through that {@link #parse} still refuses (zero, less than a nanosecond, longer than 2^63-1
   * ns). GoDurationTest runs the same samples through both.
   */
  public static final String SYNTAX = "^(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|ms|s|m|h))+$";

  private GoDuration() {}

  /**
   * Parses a positive duration.
   *
   * @throws IllegalArgumentException with a message fit for a user, if it is not one
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration");
    }
    Matcher m = PART.matcher(text);
    int at = 0;
    BigDecimal nanos = BigDecimal.ZERO;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a duration such as 90s, 5m or 1h30m");
      }
      nanos = nanos.add(new BigDecimal(m.group(1).startsWith(".") ? "0" + m.group(1) : m.group(1))
          .multiply(BigDecimal.valueOf(unitNanos(m.group(2)))));
      at = m.end();
    }
    if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("duration '" + text + "' is too long");
    }
    // whole nanoseconds, as Go truncates: "0.5ns" is zero, so not a positive duration
    long whole = nanos.longValue();
    if (whole <= 0) {
      throw new IllegalArgumentException("duration '" + text + "' must be greater than zero");
    }
    return Duration.ofNanos(whole);
  }

  private static long unitNanos(String unit) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> throw new IllegalStateException(unit);
    };
  }
}
