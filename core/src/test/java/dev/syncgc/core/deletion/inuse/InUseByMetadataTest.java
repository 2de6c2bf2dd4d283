package dev.syncgc.core.deletion.inuse;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SPEC "In use" as the CLI sees it ({@code kubectl syncgc why}, {@code status}): from metadata alone,
 * with no settings in force. A deletion under way deletes dependents only with foreground deletion, or
 * with syncgc's finalizer, no orphan request, and Synchronous recorded or a cascade's mark.
 */
class InUseByMetadataTest {

  private static boolean cascades(ObjectMetadata o) {
    return InUse.CASCADES_BY_METADATA.test(o);
  }

  @Test
  void foregroundDeletionCascades() {
    assertTrue(cascades(obj("o").deleting().finalizers(Names.FOREGROUND_FINALIZER).build()));
  }

  @Test
  void syncgcsFinalizerCascadesWithSynchronousRecordedOrACascadesMark() {
    assertTrue(cascades(obj("o").deleting().syncFinalizer()
        .annotate(Names.LAST_VALID_PROPAGATION, "Synchronous").build()));
    assertTrue(cascades(obj("o").deleting().syncFinalizer().annotate(Names.CASCADED_FROM, "r").build()));
  }

  @Test
  void syncgcsFinalizerAloneOrWithAnotherModeDoesNotCascade() {
    assertFalse(cascades(obj("o").deleting().syncFinalizer().build()));
    assertFalse(cascades(obj("o").deleting().syncFinalizer().annotate(Names.LAST_VALID_PROPAGATION, "Orphan").build()));
  }

  @Test
  void anOrphanRequestStopsTheCascade() {
    assertFalse(cascades(obj("o").deleting().syncFinalizer().finalizers(Names.ORPHAN_FINALIZER)
        .annotate(Names.LAST_VALID_PROPAGATION, "Synchronous").build()));
  }

  @Test
  void synchronousRecordedWithoutSyncgcsFinalizerDoesNotCascade() {
    assertFalse(cascades(obj("o").deleting().annotate(Names.LAST_VALID_PROPAGATION, "Synchronous").build()));
  }

  @Test
  void aUserLeftHoldsTheObjectItUses() {
    DependencyGraph g = graphOf(obj("x").build(), obj("y").uses("widget/x").build());
    InUse.Hold hold = InUse.of(g, g.get("x"));
    assertTrue(hold.holds());
    assertEquals(List.of("y"), hold.users().stream().map(ObjectMetadata::uid).toList());
  }
}
