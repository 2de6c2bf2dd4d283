package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TreeBuilderTest {
  @Test
  void everyTenthDependentOfALevelIsAnnotatedKeepAndNoneWithoutKeeping() {
    List<Integer> kept = IntStream.range(0, 100).filter(i -> !TreeBuilder.annotations(i, 10).isEmpty()).boxed()
        .toList();
    assertEquals(List.of(0, 10, 20, 30, 40, 50, 60, 70, 80, 90), kept);
    assertEquals(Map.of("syncgc.dev/keep", "true"), TreeBuilder.annotations(30, 10));
    assertEquals(Map.of(), TreeBuilder.annotations(0, 0));
  }

  @Test
  void theKeepContenderIsSyncgcKeepingEveryTenth() {
    assertEquals(10, Contender.of("syncgc-keep").keepEvery());
    assertEquals(0, Contender.of("syncgc").keepEvery());
  }
}
