package dev.syncgc.core.settings;

import java.math.BigInteger;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations written as Go and kubectl write them: {@code 90s}, {@code 5m}, {@code 1h30m}, {@code 1.5h}. */
public final class GoDuration {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  /**
   * The strings {@link #parse} reads, as one whole-string regular expression that means the same in
   * Java and in RE2 (the API server's CEL): the policy CRD's rule on {@code spec.timeout} and the
   * chart's admission policy use it, followed by {@code duration(...) > duration('0s')} (Go's
   * ParseDuration, as {@link #parse}) for what it lets through that {@link #parse} still refuses:
   * zero, less than a nanosecond, more than 2^63-1 ns (there, duration() fails with an error, which
   * refuses too). GoDurationTest runs the same samples through both.
   */
  public static final String SYNTAX = "^(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|ms|s|m|h))+$";

  private GoDuration() {}

  /**
   * Parses a positive duration as Go's {@code time.ParseDuration} does (which the API server's CEL
   * {@code duration()} calls): each part's whole number times its unit plus its fraction through a
   * float64, truncated to whole nanoseconds part by part; more than 2^63-1 ns in all is too long.
   *
   * @throws IllegalArgumentException with a message fit for a user, if it is not one
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration");
    }
    Matcher m = PART.matcher(text);
    int at = 0;
    BigInteger nanos = BigInteger.ZERO;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a duration such as 90s, 5m or 1h30m");
      }
      nanos = nanos.add(partNanos(m.group(1), unitNanos(m.group(2)), text));
      if (nanos.compareTo(TWO_63) > 0) {
        throw tooLong(text);
      }
      at = m.end();
    }
    if (nanos.compareTo(LONG_MAX) > 0) {
      throw tooLong(text);
    }
    // "0.5ns" is zero, so not a positive duration
    if (nanos.signum() == 0) {
      throw new IllegalArgumentException("duration '" + text + "' must be greater than zero");
    }
    return Duration.ofNanos(nanos.longValueExact());
  }

  private static final BigInteger TWO_63 = BigInteger.ONE.shiftLeft(63);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /** One part, as Go's ParseDuration counts it (its leadingInt, leadingFraction and overflow checks). */
  private static BigInteger partNanos(String number, long unit, String text) {
    int dot = number.indexOf('.');
    String whole = dot < 0 ? number : number.substring(0, dot);
    BigInteger v = whole.isEmpty() ? BigInteger.ZERO : new BigInteger(whole);
    if (v.compareTo(TWO_63) > 0) {
      throw tooLong(text);
    }
    // the fraction: its digits while they fit, the scale a float64
    BigInteger f = BigInteger.ZERO;
    double scale = 1;
    boolean overflow = false;
    for (char c : (dot < 0 ? "" : number.substring(dot + 1)).toCharArray()) {
      if (overflow) {
        continue;
      }
      if (f.compareTo(LONG_MAX.divide(BigInteger.TEN)) > 0) {
        overflow = true;
        continue;
      }
      BigInteger y = f.multiply(BigInteger.TEN).add(BigInteger.valueOf(c - '0'));
      if (y.compareTo(TWO_63) > 0) {
        overflow = true;
        continue;
      }
      f = y;
      scale *= 10;
    }
    if (v.compareTo(TWO_63.divide(BigInteger.valueOf(unit))) > 0) {
      throw tooLong(text);
    }
    v = v.multiply(BigInteger.valueOf(unit));
    if (f.signum() > 0) {
      v = v.add(BigInteger.valueOf((long) (f.doubleValue() * ((double) unit / scale))));
      if (v.compareTo(TWO_63) > 0) {
        throw tooLong(text);
      }
    }
    return v;
  }

  private static IllegalArgumentException tooLong(String text) {
    return new IllegalArgumentException("duration '" + text + "' is too long");
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
