package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The client-side token bucket, and turning it off. */
class RateLimiterTest {

  @Test
  void qpsZeroTurnsTheBucketOff() {
    RateLimiter off = new RateLimiter(0, 0);
    assertTrue(off.isUnlimited());
    long start = System.nanoTime();
    for (int i = 0; i < 1_000; i++) {
      off.acquire();
    }
    // a bucket without tokens would park for ever here; 10 s is far beyond any machine's noise
    assertTrue(System.nanoTime() - start < 10_000_000_000L);
    assertTrue(RateLimiter.unlimited().isUnlimited());
  }

  @Test
  void aPositiveQpsIsALimit() {
    assertFalse(new RateLimiter(200, 400).isUnlimited());
  }

  @Test
  void nonsenseIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RateLimiter(-1, 10));
    assertThrows(IllegalArgumentException.class, () -> new RateLimiter(Double.NaN, 10));
    assertThrows(IllegalArgumentException.class, () -> new RateLimiter(Double.POSITIVE_INFINITY, 10));
    assertThrows(IllegalArgumentException.class, () -> new RateLimiter(10, 0));
  }
}
