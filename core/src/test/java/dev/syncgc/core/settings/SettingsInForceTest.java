package dev.syncgc.core.settings;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** SPEC "Which propagation decides", worked out once for the operator, preview and why. */
class SettingsInForceTest {

  /** A policy deciding {@code p} for every object (annotations still win). */
  private static DeletionSettings withPolicy(ObjectMetadata o, Propagation p) {
    return DeletionSettings.fromAnnotations(o.annotations())
        .orElse(DeletionSettings.NONE.with(Setting.PROPAGATION, p));
  }

  private static Optional<Propagation> inForce(ObjectMetadata o, DeletionSettings settings) {
    return SettingsInForce.of(o, settings, Optional.empty()).propagation();
  }

  @Test
  void orphanRecordedWhileAliveDecidesEvenWhenAPolicyNowSaysSynchronous() {
    // An Orphan policy in force when the deletion began, deleted since; a
    // Synchronous catch-all policy decides now
    var deleted = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan").build();
    assertEquals(Optional.of(Propagation.ORPHAN), inForce(deleted, withPolicy(deleted, Propagation.SYNCHRONOUS)));
  }

  @Test
  void orphanRecordedWhileAliveDecidesEvenWhenTheAnnotationIsChangedToSynchronous() {
    var deleted = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan")
        .annotate(Names.PROPAGATION, "Synchronous").build();
    assertEquals(Optional.of(Propagation.ORPHAN), inForce(deleted, DeletionSettings.fromAnnotations(deleted.annotations())));
  }

  @Test
  void synchronousMayBeHandedOverToBackgroundOrMadeOrphanDuringTheDeletion() {
    var sync = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous");
    var background = sync.annotate(Names.PROPAGATION, "Background").build();
    assertEquals(Optional.of(Propagation.BACKGROUND), inForce(background, DeletionSettings.fromAnnotations(background.annotations())));
    var orphan = obj("y").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous").build();
    assertEquals(Optional.of(Propagation.ORPHAN), inForce(orphan, withPolicy(orphan, Propagation.ORPHAN)));
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), inForce(orphan, DeletionSettings.NONE));
  }

  @Test
  void invalidPropagationUnderDeletionKeepsTheRecordButOtherInvalidSettingsDoNotHideTheValidOne() {
    var invalid = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan")
        .annotate(Names.PROPAGATION, "Sideways").build();
    SettingsInForce s = SettingsInForce.of(invalid, withPolicy(invalid, Propagation.SYNCHRONOUS), Optional.empty());
    assertTrue(s.propagationInvalid());
    assertEquals(Optional.of(Propagation.ORPHAN), s.propagation());
    // a bad timeout is not a bad propagation (preview and why used to treat any invalid value so)
    var badTimeout = obj("y").annotate(Names.PROPAGATION, "Synchronous").annotate(Names.TIMEOUT, "soon").build();
    SettingsInForce t = SettingsInForce.of(badTimeout, DeletionSettings.fromAnnotations(badTimeout.annotations()),
        Optional.empty());
    assertFalse(t.propagationInvalid());
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), t.propagation());
  }

  @Test
  void nothingTellsThePropagationSoNoneIsGuessedExceptForACascadedDependent() {
    var unknown = obj("x").deleting().syncFinalizer().build();
    assertEquals(Optional.empty(), inForce(unknown, DeletionSettings.NONE));
    var cascaded = obj("y").deleting().syncFinalizer().annotate(Names.CASCADED_FROM, "owner").build();
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), inForce(cascaded, DeletionSettings.NONE));
  }

  @Test
  void aliveObjectFollowsItsSettingsNowAndAnInvalidAnnotationChangesNothing() {
    var alive = obj("x").syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan").build();
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), inForce(alive, withPolicy(alive, Propagation.SYNCHRONOUS)));
    var invalid = obj("y").annotate(Names.PROPAGATION, "Sideways").build();
    assertEquals(Optional.empty(), inForce(invalid, withPolicy(invalid, Propagation.SYNCHRONOUS)));
  }

  @Test
  void aCascadedDependentFollowsItsOwnersSwitchToReleaseAndOnceTheOwnerIsGoneNothingKeepsIt() {
    // Inherited Keep must follow the owner's switch to Release
    Map<String, ObjectMetadata> world = new HashMap<>();
    var owner = obj("o").deleting().syncFinalizer().annotate(Names.PROPAGATION, "Synchronous")
        .annotate(Names.ON_TIMEOUT, "Release").annotate(Names.GRACE_PERIOD, "7").build();
    var dependent = obj("d").ownedBy("o").deleting().syncFinalizer().annotate(Names.CASCADED_FROM, "o")
        .annotate(Names.INHERITED_GRACE_PERIOD, "30").build();
    world.put("o", owner);
    world.put("d", dependent);
    var resolve = SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()), world::get);
    assertEquals(OnTimeout.RELEASE, resolve.apply(dependent).onTimeout());
    assertEquals(Optional.of(7L), resolve.apply(dependent).gracePeriodSeconds());
    world.put("o", obj("o").deleting().syncFinalizer().annotate(Names.ON_TIMEOUT, "Keep").build());
    assertEquals(OnTimeout.KEEP, resolve.apply(dependent).onTimeout(), "kept past the deadline like its owner");
    world.remove("o");
    assertEquals(OnTimeout.RELEASE, resolve.apply(dependent).onTimeout());
    assertEquals(Optional.of(30L), resolve.apply(dependent).gracePeriodSeconds());
  }

  /**
   * The propagation is never inherited: whether an object's deletion cascades is told by the object and its
   * policy alone, as the full resolution (which follows the chain of cascading owners) tells it.
   */
  @Test
  void whetherAnObjectCascadesIsToldWithoutItsCascadingOwnersAsTheFullResolutionTellsIt() {
    Map<String, ObjectMetadata> world = new HashMap<>();
    world.put("o", obj("o").deleting().syncFinalizer().annotate(Names.PROPAGATION, "Synchronous")
        .annotate(Names.ON_TIMEOUT, "Keep").annotate(Names.GRACE_PERIOD, "7").build());
    java.util.List<ObjectMetadata> objects = new java.util.ArrayList<>();
    for (boolean deleting : new boolean[] {false, true}) {
      for (String recorded : new String[] {null, "Synchronous", "Orphan", "Background"}) {
        for (String annotation : new String[] {null, "Synchronous", "Orphan", "Background", "Sideways"}) {
          for (String cascadedFrom : new String[] {null, "o", "gone"}) {
            var b = obj("d").ownedBy("o");
            b = deleting ? b.deleting().syncFinalizer() : b;
            b = recorded == null ? b : b.annotate(Names.LAST_VALID_PROPAGATION, recorded);
            b = annotation == null ? b : b.annotate(Names.PROPAGATION, annotation);
            objects.add(cascadedFrom == null ? b.build() : b.annotate(Names.CASCADED_FROM, cascadedFrom).build());
          }
        }
      }
    }
    for (Propagation policy : new Propagation[] {null, Propagation.SYNCHRONOUS, Propagation.ORPHAN}) {
      java.util.function.Function<ObjectMetadata, DeletionSettings> settingsOf = o -> policy == null
          ? DeletionSettings.fromAnnotations(o.annotations()) : withPolicy(o, policy);
      var full = SettingsInForce.resolver(settingsOf, world::get);
      var alone = SettingsInForce.cascades(settingsOf);
      for (ObjectMetadata o : objects) {
        assertEquals(full.apply(o).cascades(), alone.test(o), o + " with policy " + policy);
      }
    }
  }

  @Test
  void aSurvivorNoLongerOwnedByItsCascadingOwnerInheritsNothingFromIt() {
    Map<String, ObjectMetadata> world = new HashMap<>();
    world.put("o", obj("o").deleting().syncFinalizer().annotate(Names.ON_TIMEOUT, "Keep").build());
    var survivor = obj("d").ownedBy("k").annotate(Names.CASCADED_FROM, "o").build();
    var resolve = SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()), world::get);
    assertEquals(OnTimeout.RELEASE, resolve.apply(survivor).onTimeout());
    assertEquals(Optional.empty(), resolve.apply(survivor).timeout().map(Duration::toSeconds));
  }

  @Test
  void theDependentsOwnSettingWinsOverTheInheritedOne() {
    Map<String, ObjectMetadata> world = new HashMap<>();
    world.put("o", obj("o").deleting().syncFinalizer().annotate(Names.ON_TIMEOUT, "Keep").build());
    var d = obj("d").ownedBy("o").deleting().syncFinalizer().annotate(Names.CASCADED_FROM, "o")
        .annotate(Names.ON_TIMEOUT, "Release").build();
    var resolve = SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()), world::get);
    assertEquals(OnTimeout.RELEASE, resolve.apply(d).onTimeout());
  }

  @Test
  void keepIsTheAnnotationsElseThePolicysAndNeverInherited() {
    DeletionSettings keepingPolicy = DeletionSettings.NONE.with(Setting.KEEP, true);
    var plain = obj("p").build();
    var no = obj("n").annotate(Names.KEEP, "false").build();
    var bad = obj("b").annotate(Names.KEEP, "yes").build();
    assertFalse(SettingsInForce.ofAnnotations(plain).keep(), "false by default");
    assertTrue(SettingsInForce.of(plain, DeletionSettings.fromAnnotations(Map.of()).orElse(keepingPolicy),
        Optional.empty()).keep(), "the policy's keep");
    assertFalse(SettingsInForce.of(no, DeletionSettings.fromAnnotations(no.annotations()).orElse(keepingPolicy),
        Optional.empty()).keep(), "the annotation wins over the policy");
    assertTrue(SettingsInForce.ofAnnotations(bad).keep(), "an invalid value counts as keep");
    var owner = obj("x").deleting().syncFinalizer().annotate(Names.KEEP, "true").build();
    var dependent = obj("d").ownedBy("x").annotate(Names.CASCADED_FROM, "x").build();
    assertFalse(SettingsInForce.of(dependent, DeletionSettings.NONE, Optional.of(SettingsInForce.ofAnnotations(owner)))
        .keep(), "a cascading owner's keep is its own");
  }
}
