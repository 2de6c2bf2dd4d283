package dev.syncgc.core.settings;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Opting in" 2: an invalid {@code on-timeout}, {@code timeout} or {@code grace-period-seconds}
 * keeps the last valid setting, recorded while the object was alive, as the propagation does.
 */
class LastValidTest {

  private static SettingsInForce inForce(ObjectMetadata o, DeletionSettings policy) {
    return SettingsInForce.of(o, DeletionSettings.fromAnnotations(o.annotations()).orElse(policy), Optional.empty());
  }

  @Test
  void aTypoOfKeepAfterTheDeletionBeganKeepsKeep() {
    for (String typo : List.of("keep", "Kep", "")) {
      var owner = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous")
          .annotate(Names.ON_TIMEOUT, typo).annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
      SettingsInForce s = inForce(owner, DeletionSettings.NONE);
      assertEquals(OnTimeout.KEEP, s.onTimeout(), "on-timeout \"" + typo + "\"");
      assertEquals(List.of(Names.ON_TIMEOUT), s.own().invalid().stream().map(InvalidSetting::annotation).toList(),
          "the bad value is still reported");
    }
  }

  @Test
  void anInvalidTimeoutOrGracePeriodKeepsTheLastValidOne() {
    var owner = obj("x").deleting().syncFinalizer().annotate(Names.TIMEOUT, "5 minutes")
        .annotate(Names.LAST_VALID_TIMEOUT, "5m").annotate(Names.GRACE_PERIOD, "-1")
        .annotate(Names.LAST_VALID_GRACE_PERIOD, "30").build();
    SettingsInForce s = inForce(owner, DeletionSettings.NONE);
    assertEquals(Optional.of(Duration.ofMinutes(5)), s.timeout());
    assertEquals(Optional.of(30L), s.gracePeriodSeconds());
    assertEquals(2, s.own().invalid().size());
  }

  @Test
  void theRecordStandsForTheAnnotationSoItWinsOverAPolicy() {
    var owner = obj("x").syncFinalizer().annotate(Names.ON_TIMEOUT, "Kep")
        .annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertEquals(OnTimeout.KEEP, inForce(owner, DeletionSettings.NONE.with(Setting.ON_TIMEOUT, OnTimeout.RELEASE))
        .onTimeout());
  }

  @Test
  void aValidAnnotationWinsOverTheRecordAndWithoutOneTheRecordIsNotUsed() {
    var changed = obj("x").deleting().syncFinalizer().annotate(Names.ON_TIMEOUT, "Release")
        .annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertEquals(OnTimeout.RELEASE, inForce(changed, DeletionSettings.NONE).onTimeout());
    var removed = obj("y").deleting().syncFinalizer().annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertEquals(OnTimeout.RELEASE, inForce(removed, DeletionSettings.NONE).onTimeout(),
        "annotation removed: the default (a removal is no typo)");
  }

  @Test
  void aValidValueIsRecordedAnInvalidOneLeavesTheRecordARemovedOneRemovesIt() {
    var fresh = obj("x").syncFinalizer().annotate(Names.ON_TIMEOUT, "Keep").annotate(Names.TIMEOUT, "3s")
        .annotate(Names.GRACE_PERIOD, "0").build();
    assertEquals(Map.of(Names.LAST_VALID_ON_TIMEOUT, "Keep", Names.LAST_VALID_TIMEOUT, "3s",
        Names.LAST_VALID_GRACE_PERIOD, "0"), LastValid.changes(fresh));
    var recorded = obj("x").syncFinalizer().annotate(Names.ON_TIMEOUT, "Keep")
        .annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertTrue(LastValid.changes(recorded).isEmpty(), "up to date: nothing to write");
    var typo = obj("x").syncFinalizer().annotate(Names.ON_TIMEOUT, "Kep")
        .annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    assertTrue(LastValid.changes(typo).isEmpty(), "an invalid value leaves the record");
    var removed = obj("x").syncFinalizer().annotate(Names.LAST_VALID_ON_TIMEOUT, "Keep").build();
    Map<String, String> remove = new HashMap<>();
    remove.put(Names.LAST_VALID_ON_TIMEOUT, null); // null: removed by the merge patch
    assertEquals(remove, LastValid.changes(removed));
    assertEquals(List.of(Names.LAST_VALID_TIMEOUT, Names.LAST_VALID_GRACE_PERIOD, Names.LAST_VALID_ON_TIMEOUT,
        Names.LAST_VALID_USERS_FROM), LastValid.annotations());
  }
}
