package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageChainTest {
  @Test
  void eachDependentButTheLastUsesItsNextSibling() {
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-1"), UsageChain.annotations(true, 7, 0, 10));
    assertEquals(Map.of("syncgc.dev/uses", "benchitem/o-7-d-9"), UsageChain.annotations(true, 7, 8, 10));
    assertEquals(Map.of(), UsageChain.annotations(true, 7, 9, 10));
    assertEquals(Map.of(), UsageChain.annotations(false, 7, 0, 10));
  }

  @Test
  void aUsedObjectGoneBeforeItsUserIsAViolation() {
    // owner 0: d-0, d-1, d-2 in order; owner 1: d-2 first, then d-1, then d-0 (two violations)
    Map<String, Integer> order = Map.of("o-0-d-0", 0, "o-0-d-1", 1, "o-0-d-2", 2,
        "o-1-d-2", 3, "o-1-d-1", 4, "o-1-d-0", 5);
    assertEquals(2, UsageChain.violations(order, 2, 3));
  }
}
