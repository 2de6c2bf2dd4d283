package dev.syncgc.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class LeaseTimingsTest {
  @Test
  void theDefaultIsClientGosAndJavaOperatorSdksWithAFiveSecondPauseLimit() {
    LeaseTimings t = LeaseTimings.of(LeaseTimings.DEFAULT);
    assertEquals(Duration.ofSeconds(10), t.renewDeadline());
    assertEquals(Duration.ofSeconds(2), t.retryPeriod());
    assertEquals(Duration.ofSeconds(5), t.pauseLimit());
  }

  @Test
  void aShortLeaseKeepsThePauseLimitBelowWhatARenewedLeaseHasLeft() {
    for (int seconds = 6; seconds <= 60; seconds++) {
      LeaseTimings t = LeaseTimings.of(Duration.ofSeconds(seconds));
      Duration left = t.duration().minus(t.retryPeriod()); // renewed one retry period before the pause
      assertTrue(t.pauseLimit().multipliedBy(2).compareTo(left) <= 0, seconds + " s: " + t);
      assertTrue(t.retryPeriod().compareTo(t.renewDeadline()) < 0 && t.renewDeadline().compareTo(t.duration()) < 0,
          seconds + " s: " + t);
    }
    assertEquals(Duration.ofMillis(3466), LeaseTimings.of(Duration.ofSeconds(8)).pauseLimit().truncatedTo(ChronoUnit.MILLIS));
  }

  @Test
  void aLeaseTooShortIsRefusedWithTheMinimum() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LeaseTimings.of(Duration.ofSeconds(3)));
    assertTrue(e.getMessage().contains("at least 6s"), e.getMessage());
  }
}
