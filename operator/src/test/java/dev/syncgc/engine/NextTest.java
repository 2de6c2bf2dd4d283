package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What follows a sync: a retry stays a retry, and the earliest time to look again wins. */
class NextTest {
  private static final Duration SECOND = Duration.ofSeconds(1);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void byKeepsTheKindAndTheEarlierTime() {
    assertEquals(new Next.Retry(SECOND), Next.RETRY.by(SECOND));
    assertEquals(new Next.Retry(SECOND), Next.RETRY.by(MINUTE).by(SECOND).by(MINUTE));
    assertEquals(Next.after(SECOND), Next.DONE.by(MINUTE).by(SECOND));
    assertFalse(Next.after(SECOND).retry());
  }

  @Test
  void andIsARetryIfEitherIsAndLooksAgainAtTheEarlierTime() {
    assertEquals(new Next.Retry(SECOND), Next.RETRY.and(Next.after(SECOND)));
    assertEquals(new Next.Retry(SECOND), Next.after(SECOND).and(Next.RETRY));
    assertEquals(new Next.Retry(SECOND), new Next.Retry(MINUTE).and(Next.after(SECOND)));
    assertEquals(Next.after(SECOND), Next.after(MINUTE).and(Next.after(SECOND)));
    assertEquals(Next.DONE, Next.DONE.and(Next.DONE));
    assertTrue(Next.DONE.and(Next.RETRY).retry());
  }
}
