package dev.syncgc.kube;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Client-side token bucket, as client-go's: {@code qps} requests a second on average, bursts of up
 * to {@code burst}. Fabric8 has none of its own. A {@code qps} of 0 turns the bucket off: every
 * request goes at once and the API server's own limits (API Priority and Fairness, answered with
 * 429 and {@code Retry-After}, see {@link TooManyRequests}) are the only ones.
 */
public final class RateLimiter {
  private final double permitsPerNano;
  private final double burst;
  private double tokens;
  private long last = System.nanoTime();

  /**
   * @param qps requests a second, or 0 for no client-side limit
   * @param burst requests that may go at once after a quiet period; ignored when {@code qps} is 0
   */
  public RateLimiter(double qps, int burst) {
    if (!(qps >= 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("qps must be 0 (no limit) or a positive number, got " + qps);
    }
    if (qps > 0 && burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1, got " + burst);
    }
    this.permitsPerNano = qps / TimeUnit.SECONDS.toNanos(1);
    this.burst = burst;
    this.tokens = burst;
  }

  /** No client-side limit. */
  public static RateLimiter unlimited() {
    return new RateLimiter(0, 0);
  }

  public boolean isUnlimited() {
    return permitsPerNano == 0;
  }

  /** Blocks until a request may be sent. */
  public void acquire() {
    if (isUnlimited()) {
      return;
    }
    long wait;
    synchronized (this) {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) * permitsPerNano);
      last = now;
      tokens -= 1;
      wait = tokens >= 0 ? 0 : (long) (-tokens / permitsPerNano);
    }
    if (wait > 0) {
      LockSupport.parkNanos(wait);
    }
  }
}
