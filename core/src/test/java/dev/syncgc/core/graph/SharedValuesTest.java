package dev.syncgc.core.graph;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class SharedValuesTest {
  @Test
  void anEqualValueGivesTheFirstInstance() {
    SharedValues values = new SharedValues();
    List<String> first = List.of(new String("f"));
    assertSame(first, values.shared(first));
    assertSame(first, values.shared(List.of(new String("f"))));
  }

  @Test
  void whenFullItStartsOverSoValuesThatNeverRepeatHoldNoMemory() {
    SharedValues values = new SharedValues();
    List<String> first = List.of("first");
    values.shared(first);
    for (int i = 0; i < 10_000; i++) {
      values.shared(List.of("unique-" + i));
    }
    assertNotSame(first, values.shared(List.of("first")));
  }
}
