package dev.syncgc.kube;

import java.time.Duration;

/**
 * What to do when the API server answers 429 Too Many Requests (API Priority and Fairness rejected
 * the request, or the max-in-flight limit was hit): the request was not carried out, so it is sent
 * again after the server's {@code Retry-After}, as client-go does, at most {@link #MAX_RETRIES}
 * times and never waiting more than {@link #MAX_TOTAL_WAIT} for one request in all. After that the
 * 429 goes back to the caller, whose object is retried later by the work queue.
 */
public final class TooManyRequests {
  public static final int CODE = 429;
  /** client-go's default for a request answered 429 (rest.Request's maxRetries). */
  public static final int MAX_RETRIES = 10;
  /** One wait, whatever the header says (APF asks for up to 60 s when drops go on). */
  static final Duration MAX_WAIT = Duration.ofSeconds(30);
  /** All the waits of one request. */
  public static final Duration MAX_TOTAL_WAIT = Duration.ofSeconds(60);
  /** When the answer carries no usable Retry-After: 250 ms, doubling. */
  static final Duration FALLBACK_BASE = Duration.ofMillis(250);

  private TooManyRequests() {}

  /**
   * The wait before resending a request refused with 429, or null when it is not to be resent.
   *
   * @param retry 1 for the first resend, 2 for the second, ...
   * @param retryAfter the response's {@code Retry-After} header (seconds), or null
   * @param waitedSoFar the waits of this request so far
   */
  public static Duration waitBefore(int retry, String retryAfter, Duration waitedSoFar) {
    if (retry < 1 || retry > MAX_RETRIES) {
      return null;
    }
    Duration wait = parseSeconds(retryAfter);
    if (wait == null) {
      wait = FALLBACK_BASE.multipliedBy(1L << Math.min(retry - 1, 10));
    }
    if (wait.compareTo(MAX_WAIT) > 0) {
      wait = MAX_WAIT;
    }
    if (waitedSoFar.plus(wait).compareTo(MAX_TOTAL_WAIT) > 0) {
      return null;
    }
    return wait;
  }

  /** {@code Retry-After} as a number of seconds (the form the API server sends), or null. */
  static Duration parseSeconds(String header) {
    if (header == null) {
      return null;
    }
    try {
      long seconds = Long.parseLong(header.trim());
      return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, MAX_WAIT.toSeconds()));
    } catch (NumberFormatException e) {
      return null; // an HTTP date or garbage: the API server never sends those; back off instead
    }
  }
}
