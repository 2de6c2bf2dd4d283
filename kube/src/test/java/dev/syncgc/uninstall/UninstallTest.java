package dev.syncgc.uninstall;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.Setting;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the uninstall release hands an object under deletion to: the propagation in force (SPEC
 * "Which propagation decides", "Coexistence with Kubernetes"), as the operator works it out.
 */
class UninstallTest {
  private static Handover handover(ObjectMetadata object) {
    return handover(object, Optional.empty());
  }

  /** With a policy deciding {@code policy} for every object (annotations win over it). */
  private static Handover handover(ObjectMetadata object, Optional<Propagation> policy) {
    SettingsInForce inForce = SettingsInForce.resolver(o -> {
      DeletionSettings own = DeletionSettings.fromAnnotations(o.annotations());
      return policy.map(p -> own.orElse(DeletionSettings.NONE.with(Setting.PROPAGATION, p)))
          .orElse(own);
    }, Map.<String, ObjectMetadata>of()::get).apply(object);
    return Handover.of(object, inForce);
  }

  @Test
  void anOrphanOwnerIsHandedToTheApiServersOrphaningNeverToForegroundDeletion() {
    assertEquals(Handover.ORPHAN, handover(obj("x").deleting().syncFinalizer()
        .annotate(Names.PROPAGATION, "Orphan").build()));
  }

  @Test
  void theOrphanRecordedWhileAliveDecidesOverALaterSynchronousAnnotationOrPolicy() {
    ObjectMetadata o = obj("x").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan")
        .annotate(Names.PROPAGATION, "Synchronous").build();
    assertEquals(Handover.ORPHAN, handover(o));
    ObjectMetadata byPolicy = obj("y").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan")
        .build();
    assertEquals(Handover.ORPHAN, handover(byPolicy, Optional.of(Propagation.SYNCHRONOUS)));
  }

  @Test
  void anOrphanPolicyDecidesWhenNothingIsRecorded() {
    assertEquals(Handover.ORPHAN, handover(obj("x").deleting().syncFinalizer().build(),
        Optional.of(Propagation.ORPHAN)));
  }

  @Test
  void aSynchronousOwnerGoesToForegroundDeletion() {
    assertEquals(Handover.FOREGROUND, handover(obj("x").deleting().syncFinalizer()
        .annotate(Names.PROPAGATION, "Synchronous").build()));
    assertEquals(Handover.FOREGROUND, handover(obj("y").deleting().syncFinalizer()
        .annotate(Names.CASCADED_FROM, "owner").build()), "a dependent a cascade finalized");
  }

  @Test
  void nothingTellingOrBackgroundLeavesItToBackgroundDeletion() {
    assertEquals(Handover.NONE, handover(obj("x").deleting().syncFinalizer().build()));
    assertEquals(Handover.NONE, handover(obj("y").deleting().syncFinalizer()
        .annotate(Names.PROPAGATION, "Background").build()));
    assertEquals(Handover.NONE, handover(obj("z").deleting().syncFinalizer()
        .annotate(Names.PROPAGATION, "Sideways").build()), "an invalid value deletes nothing more");
  }

  @Test
  void kubernetesOrphanFinalizerWinsAndOnlySyncgcsFinalizerGoes() {
    assertEquals(Handover.NONE, handover(obj("x").deleting().finalizers(Names.ORPHAN_FINALIZER, Names.FINALIZER)
        .annotate(Names.PROPAGATION, "Synchronous").build()));
  }
}
