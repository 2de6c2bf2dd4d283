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
    "SYNCHRONOUS, true,  RECORD",
    "ORPHAN,      false, ADD",
    "ORPHAN,      true,  RECORD",
    "BACKGROUND,  false, NONE",
    "BACKGROUND,  true,  REMOVE",
    "NONE,        false, NONE",
    "NONE,        true,  REMOVE",
  })
  void addsOrRemovesFinalizerToMatchPropagation(String p, boolean has, FinalizerChange expected) {
    assertEquals(expected, FinalizerChange.decide(alive(has).build(), propagation(p), false, false));
  }

  @ParameterizedTest
  @EnumSource(value = Propagation.class, names = {"SYNCHRONOUS", "ORPHAN"})
  void finalizedObjectWithItsPropagationRecordedNeedsNothing(Propagation p) {
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(
        alive(true).annotate(Names.LAST_VALID_PROPAGATION, p.value()).build(), Optional.of(p), false, false));
    Propagation other = p == Propagation.ORPHAN ? Propagation.SYNCHRONOUS : Propagation.ORPHAN;
    assertEquals(FinalizerChange.RECORD, FinalizerChange.decide(
        alive(true).annotate(Names.LAST_VALID_PROPAGATION, other.value()).build(), Optional.of(p), false, false));
  }

  @ParameterizedTest
  @EnumSource(Propagation.class)
  void objectBeingDeletedIsNeverChanged(Propagation p) {
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(obj("x").deleting().build(), Optional.of(p), false, false));
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(obj("x").deleting().syncFinalizer().build(), Optional.empty(), false, false));
  }

  @Test
  void invalidAnnotationKeepsTheLastSetting() {
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(alive(true).build(), Optional.empty(), true, false));
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(alive(false).build(), Optional.of(Propagation.SYNCHRONOUS), true, false));
  }

  @Test
  void cascadedDependentIsLeftToTheCascade() {
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(
        obj("x").syncFinalizer().annotate(Names.CASCADED_FROM, "owner").build(),
        Optional.empty(), false, true));
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(
        obj("x").annotate(Names.CASCADED_FROM, "owner").build(),
        Optional.of(Propagation.SYNCHRONOUS), false, true));
  }

  @Test
  void survivorOfACascadeLosesWhatTheCascadeWroteAndKeepsItsOwnSetting() {
    var survivor = obj("x").syncFinalizer().annotate(Names.CASCADED_FROM, "gone-owner").build();
    assertEquals(FinalizerChange.REMOVE, FinalizerChange.decide(survivor, Optional.empty(), false, false));
    assertEquals(FinalizerChange.RECORD,
        FinalizerChange.decide(survivor, Optional.of(Propagation.ORPHAN), false, false));
    var recorded = obj("y").syncFinalizer().annotate(Names.CASCADED_FROM, "gone-owner")
        .annotate(Names.LAST_VALID_PROPAGATION, "Orphan").build();
    assertEquals(FinalizerChange.RECORD,
        FinalizerChange.decide(recorded, Optional.of(Propagation.ORPHAN), false, false));
    assertEquals(FinalizerChange.RECORD, FinalizerChange.decide(recorded, Optional.empty(), true, false),
        "an invalid annotation keeps the finalizer but the cascade marks still go");
  }

  /** SPEC "Opting in" 2: the last valid on-timeout, timeout and grace period are recorded while alive. */
  @Test
  void aFinalizedObjectWhoseSettingsChangedRecordsThem() {
    var keep = obj("x").syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous")
        .annotate(Names.ON_TIMEOUT, "Keep");
    assertEquals(FinalizerChange.RECORD,
        FinalizerChange.decide(keep.build(), Optional.of(Propagation.SYNCHRONOUS), false, false));
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(keep.annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep")
        .build(), Optional.of(Propagation.SYNCHRONOUS), false, false));
    var typo = obj("x").syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous")
        .annotate(Names.ON_TIMEOUT, "Kep").annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertEquals(FinalizerChange.NONE,
        FinalizerChange.decide(typo, Optional.of(Propagation.SYNCHRONOUS), false, false));
    var notOptedIn = obj("y").annotate(Names.ON_TIMEOUT, "Keep").build();
    assertEquals(FinalizerChange.NONE, FinalizerChange.decide(notOptedIn, Optional.empty(), false, false),
        "nothing is written on an object that is not opted in");
  }
}
