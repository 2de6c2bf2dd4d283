package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import org.junit.jupiter.api.Test;

/**
 * The check each call of a plan passes when it is sent (SPEC "Synchronous deletion", step 2), in the
 * core alone: every reason it gives, and that it gives none while the plan still stands. The operator's
 * StepExecutorIT checks the calls it stops; these pin down each answer.
 */
class SendCheckTest {

  private static ObjectMetadata owner(String uid) {
    return obj(uid).deleting().syncFinalizer().annotate(Names.PROPAGATION, "Synchronous").build();
  }

  private static SendCheck check(DependencyGraph g) {
    return new SendCheck(g, SettingsInForce::ofAnnotations);
  }

  @Test
  void anOwnerStillCascadingHasNotStopped() {
    DependencyGraph g = graphOf(owner("o"));
    assertNull(check(g).ownerStopped(g.get("o")));
  }

  /**
   * Every call asks whether its owner still cascades: told by the owner alone (the propagation is never
   * inherited), not by resolving every setting of the owner and of its cascading owners above it.
   */
  @Test
  void whetherTheOwnerStillCascadesAsksNoSettingsButItsPropagation() {
    DependencyGraph g = graphOf(owner("o"), obj("b").deleting().syncFinalizer()
        .annotate(Names.PROPAGATION, "Background").build());
    SendCheck check = new SendCheck(g, o -> {
      throw new AssertionError("every setting of " + o.ref() + " resolved for a send-time check");
    }, SettingsInForce.cascades(o -> DeletionSettings.fromAnnotations(o.annotations())));
    assertNull(check.ownerStopped(g.get("o")));
    assertEquals("the owner's propagation in force is no longer Synchronous", check.ownerStopped(g.get("b")));
  }

  @Test
  void anOwnerTheGraphNeverHeldIsJudgedAsPlanned() {
    DependencyGraph g = graphOf();
    assertNull(check(g).ownerStopped(owner("o")));
    assertEquals("the owner was let go",
        check(g).ownerStopped(obj("o").deleting().annotate(Names.PROPAGATION, "Synchronous").build()));
  }

  @Test
  void anOwnerSeenDeletedIsGone() {
    DependencyGraph g = graphOf(owner("o"));
    ObjectMetadata planned = g.get("o");
    g.remove("o");
    assertEquals("the owner is gone", check(g).ownerStopped(planned));
  }

  @Test
  void aLaterOrphanRequestStopsTheOwner() {
    DependencyGraph g = graphOf(obj("o").deleting().syncFinalizer().finalizers(Names.ORPHAN_FINALIZER)
        .annotate(Names.PROPAGATION, "Synchronous").build());
    assertEquals("the owner's dependents are to be orphaned (a later orphan request)",
        check(g).ownerStopped(owner("o")));
  }

  @Test
  void anOwnerLetGoHasStopped() {
    DependencyGraph g = graphOf(obj("o").deleting().annotate(Names.PROPAGATION, "Synchronous").build());
    assertEquals("the owner was let go", check(g).ownerStopped(owner("o")));
  }

  @Test
  void anOwnerSwitchedAwayFromSynchronousHasStopped() {
    DependencyGraph g = graphOf(obj("o").deleting().syncFinalizer().annotate(Names.PROPAGATION, "Background").build());
    assertEquals("the owner's propagation in force is no longer Synchronous", check(g).ownerStopped(owner("o")));
  }

  @Test
  void aDependentWithNoOtherOwnerStillGoes() {
    DependencyGraph g = graphOf(owner("o"), obj("d").ownedBy("o").build());
    assertNull(check(g).dependentKept(g.get("o"), g.get("d")));
  }

  @Test
  void anOwnerOwningItselfGoesWithItself() {
    DependencyGraph g = graphOf(obj("o").deleting().syncFinalizer().ownedBy("x").build(), obj("x").build());
    assertNull(check(g).dependentKept(g.get("o"), g.get("o")));
  }

  @Test
  void aDependentThatNoLongerNamesTheOwnerIsKept() {
    DependencyGraph g = graphOf(owner("o"), obj("d").build());
    assertEquals("it no longer names the owner", check(g).dependentKept(g.get("o"), obj("d").ownedBy("o").build()));
  }

  @Test
  void aDependentTheGraphNeverHeldIsJudgedAsPlanned() {
    DependencyGraph g = graphOf(owner("o"));
    assertNull(check(g).dependentKept(g.get("o"), obj("d").ownedBy("o").build()));
    assertEquals("it no longer names the owner", check(g).dependentKept(g.get("o"), obj("d").build()));
  }

  @Test
  void aSolidOwnerSeenArrivingKeepsTheDependent() {
    DependencyGraph g = graphOf(owner("o"), obj("x").build(), obj("d").ownedBy("o", "x").build());
    assertEquals("another owner keeps it now", check(g).dependentKept(g.get("o"), obj("d").ownedBy("o").build()));
  }

  @Test
  void anOwnerAboutToBeDeletedByACascadeKeepsTheDependentAsDoomed() {
    // x is not being deleted yet, but its only owner r cascades: x is doomed, so is what it keeps
    DependencyGraph g = graphOf(owner("r"), obj("x").ownedBy("r").build(), owner("o"),
        obj("d").ownedBy("o", "x").build());
    assertEquals("another owner, about to be deleted by a cascade, keeps it now",
        check(g).dependentKept(g.get("o"), g.get("d")));
  }

  @Test
  void aDependentNamingOnlyAnotherOwnerNoLongerNamesTheOwner() {
    DependencyGraph g = graphOf(owner("o"), obj("x").build(), obj("d").ownedBy("x").build());
    assertEquals("it no longer names the owner", check(g).dependentKept(g.get("o"), obj("d").ownedBy("o").build()));
  }

  @Test
  void anOwnerWhoseOwnDeletionDoesNotCascadeStaysSolid() {
    // r is being deleted with syncgc's finalizer but Background in force: x is not doomed, it keeps d
    DependencyGraph g = graphOf(obj("r").deleting().syncFinalizer().annotate(Names.PROPAGATION, "Background").build(),
        obj("x").ownedBy("r").build(), owner("o"), obj("d").ownedBy("o", "x").build());
    assertEquals("another owner keeps it now", check(g).dependentKept(g.get("o"), g.get("d")));
  }

  @Test
  void anOwnerHeldBackForAHigherWaveStaysSolid() {
    // x waits while r deletes its sibling y of a higher deletion wave first: meanwhile x keeps d
    DependencyGraph g = graphOf(owner("r"), obj("x").ownedBy("r").build(),
        obj("y").ownedBy("r").annotate(Names.DELETION_WAVE, "1").build(), owner("o"),
        obj("d").ownedBy("o", "x").build());
    assertEquals("another owner keeps it now", check(g).dependentKept(g.get("o"), g.get("d")));
  }
}
