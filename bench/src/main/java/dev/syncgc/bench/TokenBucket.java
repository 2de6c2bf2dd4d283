package dev.syncgc.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Client-side token bucket, the same as syncgc's (and client-go's): qps on average, bursts of up to burst. */
final class TokenBucket {
  private final double permitsPerNano;
  private final double burst;
  private double tokens;
  private long last = System.nanoTime();

  TokenBucket(double qps, int burst) {
    this.permitsPerNano = qps / TimeUnit.SECONDS.toNanos(1);
    this.burst = burst;
    this.tokens = burst;
  }

  void acquire() {
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
