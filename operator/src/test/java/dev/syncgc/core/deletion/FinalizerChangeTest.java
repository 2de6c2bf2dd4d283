package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.settings.Propagation;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class FinalizerChangeTest {

  private static Optional<Propagation> propagation(String name) {
    return name.equals("NONE") ? Optional.empty() : Optional.of(Propagation.valueOf(name));
  }

  private static TestObjects.Builder alive(boolean hasFinalizer) {
    TestObjects.Builder b = obj("x");
    return hasFinalizer ? b.syncFinalizer() : b;
  }

  @ParameterizedTest(name = "propagation {0}, has finalizer {1} -> {2}")
  @CsvSource({
    "SYNCHRONOUS, false, ADD",
    "SYNCHRONOUS, true,  NONE",
    "ORPHAN,      false, ADD",
    "ORPHAN,      true,  NONE",
    "BACKGROUND,  false, NONE",
    "BACKGROUND,  true,  REMOVE",
    "NONE,        false, NONE",
    "NONE,        true,  REMOVE",
  })
  void addsOrRemovesFinalizerToMatchPropagation(String p, boolean has, FinalizerChange expected) {
    assertEquals(expected, FinalizerChange.decide(alive(has).build(), propagation(p), false));
  }

  @ParameterizedTest
  @EnumSource(Propagation.class)
  void objectBeingDeletedIsNeverChanged(Propagation p) {
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(obj("x").deleting().build(), Optional.of(p), false));
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(obj("x").deleting().syncFinalizer().build(), Optional.empty(), false));
  }

  @Test
  void invalidAnnotationKeepsTheLastSetting() {
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(alive(true).build(), Optional.empty(), true));
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(alive(false).build(), Optional.of(Propagation.SYNCHRONOUS), true));
  }

  @Test
  void cascadedDependentIsLeftToTheCascade() {
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(
        obj("x").syncFinalizer().annotate(Names.CASCADED_FROM, "owner").build(),
        Optional.empty(), false));
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(
        obj("x").annotate(Names.CASCADED_FROM, "owner").build(),
        Optional.of(Propagation.SYNCHRONOUS), false));
  }
}
