package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.bench.SiblingUses.Shape;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SiblingUsesTest {
  @Test
  void inAChainEachDependentButTheLastUsesItsNextSibling() {
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-1"), SiblingUses.annotations(Shape.CHAIN, true, 7, 0, 10));
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-9"), SiblingUses.annotations(Shape.CHAIN, true, 7, 8, 10));
    assertEquals(Map.of(), SiblingUses.annotations(Shape.CHAIN, true, 7, 9, 10));
    assertEquals(Map.of(), SiblingUses.annotations(Shape.CHAIN, false, 7, 0, 10));
  }

  @Test
  void inAStarEveryDependentButTheFirstUsesTheFirst() {
    assertEquals(Map.of(), SiblingUses.annotations(Shape.STAR, true, 7, 0, 10));
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-0"), SiblingUses.annotations(Shape.STAR, true, 7, 1, 10));
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-0"), SiblingUses.annotations(Shape.STAR, true, 7, 9, 10));
  }

  @Test
  void theWavesGiveTheOrderOfTheUses() {
    for (Shape shape : Shape.values()) {
      for (int i = 0; i < 10; i++) {
        int used = SiblingUses.used(shape, i, 10);
        if (used >= 0) { // the user in a higher wave than what it uses: deleted first
          assertTrue(wave(shape, i) > wave(shape, used), shape + " " + i);
        }
      }
    }
    assertEquals(Map.of("syncgc.dev/deletion-wave", "9"), SiblingUses.wave(Shape.CHAIN, 0, 10));
  }

  private static int wave(Shape shape, int i) {
    return Integer.parseInt(SiblingUses.wave(shape, i, 10).get("syncgc.dev/deletion-wave"));
  }

  @Test
  void aUsedObjectGoneBeforeItsUserIsAViolation() {
    // owner 0: d-0, d-1, d-2 in order; owner 1: d-2 first, then d-1, then d-0 (two violations)
    Map<String, Integer> order = Map.of("o-0-d-0", 0, "o-0-d-1", 1, "o-0-d-2", 2,
        "o-1-d-2", 3, "o-1-d-1", 4, "o-1-d-0", 5);
    assertEquals(2, SiblingUses.violations(Shape.CHAIN, order, 2, 3));
    // star: owner 0's d-0 went before d-1 and d-2 (two violations), owner 1's went last (none)
    assertEquals(2, SiblingUses.violations(Shape.STAR, order, 2, 3));
  }
}
