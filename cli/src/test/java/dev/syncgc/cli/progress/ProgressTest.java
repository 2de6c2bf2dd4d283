package dev.syncgc.cli.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static Progress.Sample at(int second, int left, Integer atStart, String blockers) {
    return new Progress.Sample(T0.plusSeconds(second), left, atStart, blockers);
  }

  @Test
  void theOperatorsCountAtTheStartIsTheTotalAndTheRateGivesTheTimeLeft() {
    Progress p = new Progress();
    p.add(at(0, 8, null, null)); // the first look: some went before it
    assertEquals(8, p.total());
    assertTrue(p.rate().isEmpty(), "no rate from one look");
    assertEquals(Optional.empty(), p.eta());

    p.add(at(2, 6, 10, "Waiting for 6 dependents: ..."));
    assertEquals(10, p.total(), "syncgc.dev/dependents-at-start wins over the most seen");
    assertEquals(4, p.gone());
    assertEquals(1.0, p.rate().getAsDouble(), 1e-9, "2 gone in 2 s");
    assertEquals(Optional.of(Duration.ofSeconds(6)), p.eta());
    assertEquals("Waiting for 6 dependents: ...", p.blockers());
  }

  @Test
  void aStallShowsAsNoRateWithinTheWindowAndNoTimeLeft() {
    Progress p = new Progress();
    p.add(at(0, 10, 10, null));
    p.add(at(1, 5, 10, null));
    for (int s = 2; s <= 2 + Progress.WINDOW.toSeconds() + 1; s++) {
      p.add(at(s, 5, 10, "held"));
    }
    assertEquals(0.0, p.rate().getAsDouble(), 1e-9, "the fast start has left the window");
    assertTrue(p.eta().isEmpty(), "nothing moves: no estimate");
  }

  @Test
  void nothingLeftIsNoTimeLeftAndTheTotalNeverFallsBelowWhatIsLeft() {
    Progress p = new Progress();
    p.add(at(0, 3, 2, null)); // a dependent added after the operator counted
    assertEquals(3, p.total());
    p.add(at(1, 0, 2, null));
    assertEquals(Optional.of(Duration.ZERO), p.eta());
    assertEquals(2, p.total());
    assertThrows(IllegalArgumentException.class, () -> p.add(at(0, 0, null, null)));
  }
}
