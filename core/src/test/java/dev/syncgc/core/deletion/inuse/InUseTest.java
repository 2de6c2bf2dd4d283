package dev.syncgc.core.deletion.inuse;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Plans;
import dev.syncgc.core.deletion.Simulation;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SPEC "In use": a used object waits for its users before anything of its deletion starts, and
 * inside a cascade users go first, whatever their waves or subtrees. Each test also plans with the
 * feature off, so that it fails when the claim is false.
 */
class InUseTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));
  private final DeletionPlanner off = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1), false);

  private static TestObjects.Builder owner(String uid) {
    return obj(uid).deleting().syncFinalizer();
  }

  private static List<Step> plan(DeletionPlanner p, DependencyGraph g, String owner, OnTimeout onTimeout) {
    return Plans.plan(p, g, g.get(owner), Propagation.SYNCHRONOUS, Optional.of(Duration.ofMinutes(5)), onTimeout, NOW,
        uid -> null, List.of(), Simulation::wave);
  }

  private List<Step> plan(DependencyGraph g, String owner) {
    return plan(planner, g, owner, OnTimeout.RELEASE);
  }

  private static Set<String> deleted(List<Step> steps) {
    return steps.stream().filter(s -> s instanceof Step.DeleteDependent)
        .map(s -> ((Step.DeleteDependent) s).dependent().uid()).collect(Collectors.toSet());
  }

  @Test
  void aUsedObjectWaitsForItsUsersWithNothingOfItsDeletionStarted() {
    DependencyGraph g = graphOf(owner("x").build(), obj("child").ownedBy("x").build(),
        obj("y").kind("v1", "ConfigMap").uses("widget/x").build());

    List<Step> steps = plan(g, "x");

    Step.WaitForUsers wait = assertInstanceOf(Step.WaitForUsers.class, steps.get(0));
    assertEquals(List.of("y"), wait.users().stream().map(ObjectRef::uid).toList());
    assertEquals(1, steps.size(), "no Start (no deadline), no dependent deleted: " + steps);
    assertTrue(wait.message().contains("ConfigMap/default/y"), wait.message());
    assertInstanceOf(Step.Start.class, plan(off, g, "x", OnTimeout.RELEASE).get(0), "off: it starts at once");
  }

  @Test
  void aUserBeingDeletedStillHoldsAndOnceGoneTheDeletionStarts() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").deleting().finalizers("other").uses("widget/x").build());
    assertInstanceOf(Step.WaitForUsers.class, plan(g, "x").get(0));

    g.remove("y");
    assertInstanceOf(Step.Start.class, plan(g, "x").get(0));
  }

  @Test
  void aUserThatNoLongerNamesTheObjectNoLongerHoldsIt() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").uses("widget/x").build());
    assertInstanceOf(Step.WaitForUsers.class, plan(g, "x").get(0));

    g.upsert(obj("y").rv(2).uses("widget/other").build());
    assertInstanceOf(Step.Start.class, plan(g, "x").get(0));
  }

  @Test
  void anOrphanOwnerInUseWaitsBeforeItsDependentsAreOrphanedToo() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").uses("widget/x").build());
    List<Step> steps = Plans.plan(planner, g, g.get("x"), Propagation.ORPHAN, Optional.empty(), NOW, uid -> null,
        List.of());
    assertEquals(List.of(Step.WaitForUsers.class), steps.stream().map(Object::getClass).toList());
  }

  @Test
  void itsOwnDependentsAndItselfDoNotHoldIt() {
    DependencyGraph g = graphOf(owner("x").uses("widget/x").build(), obj("child").ownedBy("x").uses("widget/x").build(),
        obj("grandchild").ownedBy("child").uses("widget/x").build());
    assertInstanceOf(Step.Start.class, plan(g, "x").get(0), "they go before it anyway: its own cascade deletes them");
  }

  @Test
  void anOwnerThatUsesItsOwnDependentDeletesItFirstAndGoesLast() {
    // ownership and use in a ring: o's cascade deletes x, o goes after it (o must not wait for itself)
    DependencyGraph g = graphOf(owner("o").deadline(NOW.plusSeconds(300)).uses("widget/x").build(),
        obj("x").ownedBy("o").build());
    assertEquals(Set.of("x"), deleted(plan(g, "o")));

    DependencyGraph alive = graphOf(obj("o").uses("widget/x").build(), owner("x").ownedBy("o").build());
    assertInstanceOf(Step.WaitForUsers.class, plan(alive, "x").get(0), "an owner alive still uses it");
  }

  @Test
  void usersThatUseEachOtherAllBeingDeletedGoAsAUnit() {
    DependencyGraph g = graphOf(owner("x").uses("widget/y").build(), owner("y").uses("widget/x").build());

    List<Step> steps = plan(g, "x");

    Step.RingOfUsers ring = assertInstanceOf(Step.RingOfUsers.class, steps.get(0));
    assertEquals(List.of("x", "y", "x"), ring.path().stream().map(ObjectRef::uid).toList());
    assertInstanceOf(Step.Start.class, steps.get(1));
  }

  @Test
  void usersThatUseEachOtherInsideOneCascadeGoAsAUnit() {
    DependencyGraph g = graphOf(owner("o").deadline(NOW.plusSeconds(300)).build(),
        obj("x").ownedBy("o").uses("widget/y").build(), obj("y").ownedBy("o").uses("widget/x").build());
    assertEquals(Set.of("x", "y"), deleted(plan(g, "o")), "not held for ever by each other");
  }

  /**
   * Ownership and use in one cycle: a uses b, b uses c, and a owns c. c waits for its user b, b for its
   * user a, a for its dependent c: none can go first, so they go as a unit (SPEC: mutual use is a ring),
   * and the root goes. The differential test with usage edges found it (the root waited for its
   * deadline).
   */
  @Test
  void ownershipAndUseInOneCycleGoAsAUnit() {
    List<ObjectMetadata> world = List.of(obj("o").build(), obj("a").ownedBy("o").uses("widget/b").build(),
        obj("b").ownedBy("o").uses("widget/c").build(), obj("c").ownedBy("a").build());
    assertGoesAsAUnit(world);
  }

  /** Deleting "o" removes everything, and the cycle is named (RingOfUsers). */
  private static void assertGoesAsAUnit(List<ObjectMetadata> world) {
    List<Step> rings = new ArrayList<>();
    Simulation sim = new Simulation(world, new Simulation.Checks() {
      @Override
      public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {
        steps.stream().filter(s -> s instanceof Step.RingOfUsers).forEach(rings::add);
      }

      @Override
      public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
          Map<String, ObjectMetadata> after) {}
    });
    sim.delete("o");

    assertTrue(sim.run(200), "settles");
    assertEquals(Set.of(), sim.objects().keySet(), "left: " + sim.objects().keySet() + "; removed in order "
        + sim.removed());
    assertFalse(rings.isEmpty(), "the cycle is named");
  }

  /**
   * A user and what it uses share a dependent (the soak, seed 6318072704847126218 round 2): u uses x,
   * both own d. d is deleted only once both its owners are marked, x is marked only once its user u is
   * gone, and u goes only after its dependent d: none can go first, so they go as a unit.
   */
  @Test
  void aUserAndWhatItUsesSharingADependentGoAsAUnit() {
    List<ObjectMetadata> world = List.of(obj("o").build(), obj("u").ownedBy("o").uses("widget/x").build(),
        obj("x").ownedBy("o").build(), obj("d").ownedBy("u", "x").build());
    assertGoesAsAUnit(world);
  }

  /** A ring of use across subtrees (a under p, b under q, a and b use each other): it goes as a unit too. */
  @Test
  void aRingOfUseAcrossSubtreesGoesAsAUnit() {
    assertGoesAsAUnit(List.of(obj("o").build(), obj("p").ownedBy("o").build(), obj("q").ownedBy("o").build(),
        obj("a").ownedBy("p").uses("widget/b").build(), obj("b").ownedBy("q").uses("widget/a").build()));
  }

  @Test
  void aRingWithAMemberNotBeingDeletedStillHolds() {
    DependencyGraph g = graphOf(owner("x").uses("widget/y").build(), obj("y").uses("widget/x").build());
    assertInstanceOf(Step.WaitForUsers.class, plan(g, "x").get(0));
  }

  @Test
  void insideACascadeUsersGoFirstWhateverTheirWave() {
    // x is wave 1 (first without usage); y, in wave 0, uses it: y goes first, then x
    DependencyGraph g = graphOf(owner("o").deadline(NOW.plusSeconds(300)).build(),
        obj("x").ownedBy("o").annotate(Names.DELETION_WAVE, "1").build(),
        obj("y").ownedBy("o").uses("widget/x").build());

    assertEquals(Set.of("y"), deleted(plan(g, "o")));
    assertEquals(Set.of("x"), deleted(plan(off, g, "o", OnTimeout.RELEASE)), "off: the wave alone decides");

    g.remove("y");
    assertEquals(Set.of("x"), deleted(plan(g, "o")));
  }

  @Test
  void insideACascadeAUserInAnotherSubtreeRaisesItsSubtreeRootsWave() {
    // z (wave 0) owns y, which uses x (wave 1): z goes (with its subtree) before x
    DependencyGraph g = graphOf(owner("o").deadline(NOW.plusSeconds(300)).build(),
        obj("x").ownedBy("o").annotate(Names.DELETION_WAVE, "1").build(), obj("z").ownedBy("o").build(),
        obj("y").ownedBy("z").uses("widget/x").build());

    assertEquals(Set.of("z"), deleted(plan(g, "o")));
    assertEquals(Set.of("x"), deleted(plan(off, g, "o", OnTimeout.RELEASE)));
  }

  @Test
  void usesBetweenObjectsDeepInDifferentSubtreesOrderTheSubtreesWhateverTheirWaves() {
    // x (wave -1), z (wave 1), y (wave 0) under the root; xd under x uses z; yd under y uses xd. Raising x
    // alone to z's wave deleted x first; x then waited for xd, held by yd, whose subtree root y (wave 0)
    // never started: nothing moved until the deadline. Users first: yd, then xd, then z.
    List<String> removed = played(obj("root").syncFinalizer().build(),
        obj("x").ownedBy("root").annotate(Names.DELETION_WAVE, "-1").build(),
        obj("z").ownedBy("root").annotate(Names.DELETION_WAVE, "1").build(), obj("y").ownedBy("root").build(),
        obj("xd").ownedBy("x").uses("widget/z").build(), obj("yd").ownedBy("y").uses("widget/xd").build());

    assertEquals(Set.of("yd", "y", "xd", "x", "z", "root"), Set.copyOf(removed), "everything goes");
    assertTrue(removed.indexOf("yd") < removed.indexOf("xd"), removed.toString());
    assertTrue(removed.indexOf("xd") < removed.indexOf("z"), removed.toString());
  }

  @Test
  void wavesInsideTwoSubtreesThatUseEachOtherAcrossThemGiveWayToUsersFirst() {
    // under x: p (wave 1) before q (wave 0); under y: yw1 (wave 1) before yw0 (wave 0). Something under yw0
    // uses pd (under p); qd (under q) uses yu (under yw1). With both waves kept: q waits for p, p for pd,
    // pd for yw0's user, yw0 for yw1, yw1 for yu, yu for qd, qd for q: a deadlock. Users go first.
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("x").ownedBy("root").build(),
        obj("y").ownedBy("root").build(),
        obj("p").ownedBy("x").annotate(Names.DELETION_WAVE, "1").build(), obj("q").ownedBy("x").build(),
        obj("pd").ownedBy("p").build(), obj("qd").ownedBy("q").uses("widget/yu").build(),
        obj("yw1").ownedBy("y").annotate(Names.DELETION_WAVE, "1").build(), obj("yw0").ownedBy("y").build(),
        obj("yu").ownedBy("yw1").build(), obj("yuser").ownedBy("yw0").uses("widget/pd").build());

    assertTrue(removed.contains("root"), "everything goes: " + removed);
    assertTrue(removed.indexOf("yuser") < removed.indexOf("pd"), removed.toString());
    assertTrue(removed.indexOf("qd") < removed.indexOf("yu"), removed.toString());
  }

  @Test
  void usersThatUseEachOtherGoAsAUnitWhenADependentOfOneIsKeptByAnotherOwner() {
    // a and b use each other; d, a's dependent, is kept by "other" (alive): a's deletion lets go of d, it
    // does not wait for d to be gone, so the ring is a ring (found by the property test: nothing went)
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("other").build(),
        obj("a").ownedBy("root").uses("widget/b").build(), obj("b").ownedBy("root").uses("widget/a").build(),
        obj("d").ownedBy("a", "other").build());

    assertEquals(Set.of("a", "b", "root"), Set.copyOf(removed));
  }

  @Test
  void aRingThroughTheDependentOfAnOwnerHeldInUseIsARing() {
    // b uses a, c (a's dependent) uses b: a waits for b, b for c, and c is deleted only by a's cascade,
    // which an a held in use has not started (marked as deleted, a had counted as started: nothing went)
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("co").ownedBy("root").syncFinalizer().build(),
        obj("a").ownedBy("root", "co").syncFinalizer().build(),
        obj("b").ownedBy("root", "co").syncFinalizer().uses("widget/a").build(),
        obj("c").ownedBy("a").syncFinalizer().uses("widget/b").build());

    assertEquals(Set.of("root", "co", "a", "b", "c"), Set.copyOf(removed));
  }

  @Test
  void aUserInALowerWaveThanADependentSharedWithWhatItUsesGoesFirst() {
    // under a: s (wave 0, shared with b) before c (wave -1); c uses b. s is deleted once b's deletion
    // started, b's waits for c, c's waited for s's wave: found by the property test (nothing went)
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("a").ownedBy("root").build(),
        obj("b").ownedBy("root").syncFinalizer().build(),
        obj("c").ownedBy("a").annotate(Names.DELETION_WAVE, "-1").uses("widget/b").build(),
        obj("s").ownedBy("a", "b").build());

    assertEquals(Set.of("root", "a", "b", "c", "s"), Set.copyOf(removed));
    assertTrue(removed.indexOf("c") < removed.indexOf("b"), removed.toString());
  }

  @Test
  void aCycleOfUseThroughACoOwnerHeldInUseAndAnOwnershipRingGoesAsAUnit() {
    // The soak, seed -4662751325265996879 round 2: d (under a and b) uses x; x owns the ring r0..r4, whose
    // leaf uses b. x waits for d, d for b's deletion (b co-owns it, and the cascade deletes b), b for the
    // leaf, the leaf for the ring, the ring for x: a cycle of use and ownership, so it goes as a unit.
    // It went nowhere (the root and a waited for ever).
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("a").ownedBy("root").build(),
        obj("u").ownedBy("root").uses("widget/x").build(), obj("x").ownedBy("root").build(),
        obj("b").ownedBy("root").build(), obj("d").ownedBy("a", "b").uses("widget/e, widget/x").build(),
        obj("e").ownedBy("a").build(), obj("r0").ownedBy("x", "r4").build(), obj("r1").ownedBy("r0").build(),
        obj("r2").ownedBy("r1").build(), obj("r3").ownedBy("r2").build(), obj("r4").ownedBy("r3").build(),
        obj("leaf").ownedBy("r4").uses("widget/r3, widget/b").build());

    assertEquals(Set.of("root", "a", "u", "x", "b", "d", "e", "r0", "r1", "r2", "r3", "r4", "leaf"),
        Set.copyOf(removed), "everything goes: " + removed);
  }

  @Test
  void aUserUnderARingThatStaysKeepsWhatItUsesThoughTheCycleRunsThroughIt() {
    // As above, but the ring stays: kept by an owner outside, or owned by nothing outside it (the leaf is
    // also under x, so that the cycle closes without the ring). The leaf stays, so b and x stay.
    List<ObjectMetadata> kept = List.of(obj("root").syncFinalizer().build(), obj("keeper").build(),
        obj("a").ownedBy("root").build(), obj("x").ownedBy("root").build(), obj("b").ownedBy("root").build(),
        obj("d").ownedBy("a", "b").uses("widget/x").build(), obj("r0").ownedBy("x", "r2").build(),
        obj("r1").ownedBy("r0", "keeper").build(), obj("r2").ownedBy("r1").build(),
        obj("leaf").ownedBy("r2").uses("widget/b").build());
    List<ObjectMetadata> alone = List.of(obj("root").syncFinalizer().build(), obj("a").ownedBy("root").build(),
        obj("x").ownedBy("root").build(), obj("b").ownedBy("root").build(),
        obj("d").ownedBy("a", "b").uses("widget/x").build(), obj("r0").ownedBy("r2").build(),
        obj("r1").ownedBy("r0").build(), obj("r2").ownedBy("r1").build(),
        obj("leaf").ownedBy("r2", "x").uses("widget/b").build());

    for (List<ObjectMetadata> world : List.of(kept, alone)) {
      List<String> removed = Simulation.played(world, "root");
      assertFalse(removed.contains("leaf"), "the ring keeps the leaf: " + removed);
      assertFalse(removed.contains("b") || removed.contains("x"), "the leaf keeps b, d keeps x: " + removed);
    }
  }

  @Test
  void aDependentSharedWithADependentKeptByAnotherOwnerRaisesNoWave() {
    // The soak, seed 5448005833463982636 round 7: n1-5's ring uses n1-2 (wave 2) and n1-4, so n1-5 goes in
    // wave 2. n2-0 and n2-1 are shared with n1-0, which "keeper" keeps: n1-0 never goes, so they wait on
    // nothing outside, and n1-4 and n1-6 stay in wave 0. They went with n1-5 in wave 2, before n1-2.
    List<String> removed = played(obj("root").syncFinalizer().build(), obj("keeper").build(),
        obj("n1-0").ownedBy("root", "keeper").build(),
        obj("n1-1").ownedBy("root").annotate(Names.DELETION_WAVE, "0").build(),
        obj("n1-2").ownedBy("root").annotate(Names.DELETION_WAVE, "2").build(),
        obj("n1-3").ownedBy("root").annotate(Names.DELETION_WAVE, "-1").build(),
        obj("n1-4").ownedBy("root").annotate(Names.DELETION_WAVE, "0").build(),
        obj("n1-5").ownedBy("root").annotate(Names.DELETION_WAVE, "0").build(),
        obj("n1-6").ownedBy("root").annotate(Names.DELETION_WAVE, "0").build(),
        obj("n2-0").ownedBy("n1-0", "n1-4").build(), obj("n2-1").ownedBy("n1-0", "n1-5", "n1-6").build(),
        obj("r0").ownedBy("n1-5", "r2").uses("widget/n1-2").build(), obj("r1").ownedBy("r0").build(),
        obj("r2").ownedBy("r1").uses("widget/n1-4").build(), obj("leaf").ownedBy("r2").build(),
        obj("k0").ownedBy("n1-6", "k2").build(), obj("k1").ownedBy("k0", "keeper").build(),
        obj("k2").ownedBy("k1").build());

    assertTrue(removed.containsAll(List.of("root", "n1-1", "n1-2", "n1-3", "n1-4", "n1-5", "n1-6", "r0")), removed.toString());
    for (String lower : List.of("n1-1", "n1-4", "n1-6")) {
      assertTrue(removed.indexOf("n1-2") < removed.indexOf(lower), "wave 2 before wave 0: " + removed);
    }
    assertTrue(removed.indexOf("r0") < removed.indexOf("n1-2"), "the user first: " + removed);
  }

  /** The root deleted and the whole deletion played (no time passes: a deadline never comes), in order of removal. */
  private static List<String> played(ObjectMetadata... world) {
    return Simulation.played(List.of(world), "root");
  }

  @Test
  void aUserOutsideTheCascadeKeepsTheUsedObjectEvenAtAReleaseDeadline() {
    DependencyGraph g = graphOf(owner("o").deadline(NOW.plusSeconds(300)).build(), obj("x").ownedBy("o").build(),
        obj("outside").uses("widget/x").build());

    List<Step> steps = plan(g, "o");
    assertEquals(Set.of(), deleted(steps));
    Step.Wait wait = assertInstanceOf(Step.Wait.class, steps.get(steps.size() - 1));
    assertEquals("x", wait.blockers().get(0).ref().uid());
    assertEquals("in use by Widget/default/outside (syncgc.dev/uses)", wait.blockers().get(0).why(),
        "the WaitingForDependents Event says why it is not deleted");

    DependencyGraph late = graphOf(owner("o").deadline(NOW.minusSeconds(1)).build(), obj("x").ownedBy("o").build(),
        obj("outside").uses("widget/x").build());
    List<Step> atDeadline = plan(late, "o");
    assertEquals(Set.of(), deleted(atDeadline), "never deleted while in use");
    assertInstanceOf(Step.Release.class, atDeadline.get(atDeadline.size() - 1), "the owner goes");
    assertEquals(Set.of("x"), deleted(plan(off, late, "o", OnTimeout.RELEASE)));
  }

  @Test
  void aRingMemberInUseFromOutsideIsNotReleasedWithItsRing() {
    // a owns b, b owns a, both being deleted; u (outside the ring) uses b: the ring waits, whole, until u is
    // gone (SPEC "In use": a ring released as a unit keeps a member a user outside the unit still names;
    // releasing the others would let an owner of the ring go before it). Before: both were released at once.
    List<ObjectMetadata> world = List.of(owner("a").ownedBy("b").build(), owner("b").ownedBy("a").build(),
        obj("u").kind("v1", "ConfigMap").uses("widget/b").build());
    DependencyGraph g = graphOf(world.toArray(ObjectMetadata[]::new));

    for (String member : List.of("a", "b")) {
      List<Step> steps = plan(g, member);
      assertTrue(steps.stream().noneMatch(s -> s instanceof Step.ReleaseRing), member + ": " + steps);
    }
    assertTrue(plan(off, g, "a", OnTimeout.RELEASE).stream().anyMatch(s -> s instanceof Step.ReleaseRing),
        "without In use the ring is released");

    g.remove("u");
    assertTrue(plan(g, "a").stream().anyMatch(s -> s instanceof Step.ReleaseRing), "once the user is gone");
  }

  @Test
  void anOwnerOutsideThatOrphansOrIsHeldByAnotherControllerRaisesNoWave() {
    // q, outside o's subtree, co-owns m (under a, wave 2) and n (under b, wave 0); q is being deleted but
    // keeps both (it orphans, or another controller's finalizer holds it: solid for the ring rule), so
    // nothing going outside waits on either subtree and the waves stand: a first, b after. Read as
    // "may go", q merged the waves and b was deleted with a, whenever any use existed anywhere.
    for (TestObjects.Builder q : List.of(obj("q").deleting().finalizers(Names.ORPHAN_FINALIZER),
        obj("q").deleting().finalizers("example.com/hold"))) {
      DependencyGraph g = graphOf(owner("o").build(), q.build(),
          obj("a").ownedBy("o").annotate(Names.DELETION_WAVE, "2").build(), obj("m").ownedBy("a").ownedBy("q").build(),
          obj("b").ownedBy("o").build(), obj("n").ownedBy("b").ownedBy("q").build(),
          obj("z").build(), obj("u").uses("widget/z").build());

      assertEquals(Set.of("a"), deleted(plan(g, "o")), g.get("q").finalizers().toString());
    }
  }

  @Test
  void aCycleOfUseThroughAWideObjectIsReleasedWhateverItsSize() {
    // x uses y, y uses x, both being deleted, y owns 1,100 objects: the search for the cycle used to give
    // up after 1,000 steps and hold both for ever (WaitingForUsers, no deadline); SPEC: cycles of use are
    // released whatever their size
    List<ObjectMetadata> world = new ArrayList<>(List.of(owner("x").uses("widget/y").build(),
        owner("y").uses("widget/x").build()));
    for (int i = 0; i < 1_100; i++) {
      world.add(obj("d" + i).ownedBy("y").build());
    }
    DependencyGraph g = graphOf(world.toArray(ObjectMetadata[]::new));

    for (String member : List.of("x", "y")) {
      List<Step> steps = plan(g, member);
      assertFalse(steps.get(0) instanceof Step.WaitForUsers, member + " is held: " + steps.get(0));
      assertInstanceOf(Step.RingOfUsers.class, steps.get(0), member);
    }
  }

  @Test
  void aNameThatResolvesToNothingProtectsNothing() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").uses("nosuchkind/x, gadget/x, widget/other/x").build());
    assertInstanceOf(Step.Start.class, plan(g, "x").get(0));
    assertTrue(g.uses(g.get("y")).stream().noneMatch(u -> u.valid()));
  }

  @Test
  void anObjectThatDoesNotExistYetIsProtectedWhenItAppears() {
    DependencyGraph g = graphOf(obj("y").uses("widget/x").build());
    assertTrue(g.usersOf(obj("x").build()).size() == 1);
    g.upsert(owner("x").build());
    assertInstanceOf(Step.WaitForUsers.class, plan(g, "x").get(0));
  }

  @Test
  void anObjectOfAnotherNamespaceOrKindIsNotUsed() {
    DependencyGraph g = graphOf(owner("x").build(), obj("y").namespace("other").uses("widget/x").build(),
        obj("z").uses("configmap/x").build());
    assertFalse(plan(g, "x").get(0) instanceof Step.WaitForUsers);
  }
}
