package dev.syncgc.core.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Names;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeletionSettingsTest {

  @Test
  void readsValidValues() {
    DeletionSettings s = DeletionSettings.fromAnnotations(Map.of(
        Names.PROPAGATION, "Synchronous",
        Names.TIMEOUT, "1h30m",
        Names.GRACE_PERIOD, "30"));

    assertEquals(Optional.of(Propagation.SYNCHRONOUS), s.propagation());
    assertEquals(Optional.of(Duration.ofMinutes(90)), s.timeout());
    assertEquals(Optional.of(30L), s.gracePeriodSeconds());
    assertEquals(List.of(), s.invalid());
  }

  @ParameterizedTest
  @CsvSource({"Synchronous, SYNCHRONOUS", "Orphan, ORPHAN", "Background, BACKGROUND"})
  void readsEachPropagation(String value, Propagation expected) {
    assertEquals(Optional.of(expected),
        DeletionSettings.fromAnnotations(Map.of(Names.PROPAGATION, value)).propagation());
  }

  @Test
  void graceZeroIsValid() {
    assertEquals(Optional.of(0L),
        DeletionSettings.fromAnnotations(Map.of(Names.GRACE_PERIOD, "0")).gracePeriodSeconds());
  }

  @Test
  void noAnnotationsMeansNoSettings() {
    assertEquals(DeletionSettings.NONE, DeletionSettings.fromAnnotations(Map.of()));
  }

  @ParameterizedTest(name = "{0}={1} is invalid")
  @CsvSource({
    "syncgc.dev/propagation, synchronous",
    "syncgc.dev/propagation, Foreground",
    "syncgc.dev/timeout, soon",
    "syncgc.dev/timeout, 10",
    "syncgc.dev/grace-period-seconds, -1",
    "syncgc.dev/grace-period-seconds, ten",
    "syncgc.dev/on-timeout, keep",
    "syncgc.dev/on-timeout, Forever",
  })
  void invalidValueIsReportedAndLeavesItsFieldEmpty(String annotation, String value) {
    DeletionSettings s = DeletionSettings.fromAnnotations(Map.of(annotation, value));

    assertEquals(1, s.invalid().size());
    InvalidSetting invalid = s.invalid().get(0);
    assertEquals(annotation, invalid.annotation());
    assertEquals(value, invalid.value());
    assertTrue(invalid.message().contains(annotation) && invalid.message().contains(value),
        invalid.message());
    assertEquals(Optional.empty(), s.propagation());
    assertEquals(Optional.empty(), s.timeout());
    assertEquals(Optional.empty(), s.gracePeriodSeconds());
    assertEquals(Optional.empty(), s.onTimeout());
  }

  @Test
  void oneInvalidValueDoesNotSpoilTheOthers() {
    DeletionSettings s = DeletionSettings.fromAnnotations(Map.of(
        Names.PROPAGATION, "Orphan",
        Names.TIMEOUT, "later",
        Names.GRACE_PERIOD, "5"));

    assertEquals(Optional.of(Propagation.ORPHAN), s.propagation());
    assertEquals(Optional.of(5L), s.gracePeriodSeconds());
    assertEquals(List.of(Names.TIMEOUT), s.invalid().stream().map(InvalidSetting::annotation).toList());
  }

  @Test
  void orElseKeepsAnnotationValuesOverFallback() {
    DeletionSettings annotated = DeletionSettings.fromAnnotations(Map.of(
        Names.PROPAGATION, "Orphan", Names.TIMEOUT, "5m", Names.GRACE_PERIOD, "1"));
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS).with(Setting.TIMEOUT, Duration.ofHours(1)).with(Setting.GRACE_PERIOD, 60L).with(Setting.ON_TIMEOUT, OnTimeout.KEEP).with(Setting.DELETION_WAVE, 3);

    DeletionSettings s = annotated.orElse(policy);

    assertEquals(Optional.of(Propagation.ORPHAN), s.propagation());
    assertEquals(Optional.of(Duration.ofMinutes(5)), s.timeout());
    assertEquals(Optional.of(1L), s.gracePeriodSeconds());
  }

  @Test
  void orElseFillsMissingAndInvalidFieldsFromFallback() {
    DeletionSettings annotated = DeletionSettings.fromAnnotations(Map.of(Names.TIMEOUT, "never"));
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS).with(Setting.TIMEOUT, Duration.ofHours(1)).with(Setting.GRACE_PERIOD, 60L).with(Setting.ON_TIMEOUT, OnTimeout.KEEP).with(Setting.DELETION_WAVE, 3);

    DeletionSettings s = annotated.orElse(policy);

    assertEquals(Optional.of(Propagation.SYNCHRONOUS), s.propagation());
    assertEquals(Optional.of(Duration.ofHours(1)), s.timeout());
    assertEquals(Optional.of(60L), s.gracePeriodSeconds());
    assertEquals(annotated.invalid(), s.invalid());
  }

  @Test
  void readsDeletionWaveAndOnTimeout() {
    DeletionSettings s = DeletionSettings.fromAnnotations(Map.of(
        Names.DELETION_WAVE, "-2", Names.ON_TIMEOUT, "Keep"));

    assertEquals(-2, s.wave());
    assertEquals(OnTimeout.KEEP, s.onTimeout().orElse(OnTimeout.RELEASE));
    assertEquals(List.of(), s.invalid());
  }

  @Test
  void defaultsAreWaveZeroAndRelease() {
    assertEquals(0, DeletionSettings.NONE.wave());
    assertEquals(OnTimeout.RELEASE, DeletionSettings.NONE.onTimeout().orElse(OnTimeout.RELEASE));
  }

  @ParameterizedTest(name = "deletion-wave={0} is invalid and counts as 0, even over a policy''s wave")
  @CsvSource({"first", "1.5", "''", "99999999999"})
  void invalidWaveIsReportedAndCountsAsZero(String value) {
    DeletionSettings s = DeletionSettings.fromAnnotations(Map.of(Names.DELETION_WAVE, value));

    assertEquals(List.of(Names.DELETION_WAVE), s.invalid().stream().map(InvalidSetting::annotation).toList());
    assertEquals(0, s.wave());
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS).with(Setting.DELETION_WAVE, 7);
    assertEquals(0, s.orElse(policy).wave());
  }

  @Test
  void orElseTakesWaveAndOnTimeoutFromFallbackOnlyWhenMissing() {
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS).with(Setting.ON_TIMEOUT, OnTimeout.KEEP).with(Setting.DELETION_WAVE, 7);

    assertEquals(7, DeletionSettings.NONE.orElse(policy).wave());
    assertEquals(OnTimeout.KEEP, DeletionSettings.NONE.orElse(policy).onTimeout().orElse(OnTimeout.RELEASE));
    DeletionSettings own = DeletionSettings.fromAnnotations(Map.of(
        Names.DELETION_WAVE, "1", Names.ON_TIMEOUT, "Release"));
    assertEquals(1, own.orElse(policy).wave());
    assertEquals(OnTimeout.RELEASE, own.orElse(policy).onTimeout().orElse(OnTimeout.RELEASE));
  }
}
