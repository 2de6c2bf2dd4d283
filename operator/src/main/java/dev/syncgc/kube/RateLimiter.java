package dev.syncgc.kube;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Client-side token bucket, as client-go's: {@code qps} requests a second on average, bursts of up
 * to {@code burst}. Fabric8 has none of its own.
 */
public final class RateLimiter {
  private final double permitsPerNano;
  private final double burst;
  private double tokens;
  private long last = System.nanoTime();

  public RateLimiter(double qps, int burst) {
    this.permitsPerNano = qps / TimeUnit.SECONDS.toNanos(1);
    this.burst = burst;
    this.tokens = burst;
  }

  /** Blocks until a request may be sent. */
  public void acquire() {
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
