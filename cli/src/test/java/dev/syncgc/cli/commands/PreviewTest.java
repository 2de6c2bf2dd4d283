package dev.syncgc.cli.commands;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreviewTest {
  private final List<ObjectMetadata> all = new java.util.ArrayList<>();

  private ObjectMetadata add(String uid, String... owners) {
    ObjectMetadata m = obj(uid).ownedBy(owners).build();
    all.add(m);
    return m;
  }

  /** A root opted in with this propagation, carrying the finalizer as the operator would have added it. */
  private ObjectMetadata root(String uid, String propagation) {
    ObjectMetadata m = obj(uid).annotate(Names.PROPAGATION, propagation).syncFinalizer().build();
    all.add(m);
    return m;
  }

  private Preview preview(ObjectMetadata root) {
    return Preview.of(TestObjects.KINDS, all, root, x -> DeletionSettings.fromAnnotations(x.annotations()),
        Instant.parse("2026-01-01T00:00:00Z"));
  }

  private static List<String> uids(List<ObjectMetadata> objects) {
    return objects.stream().map(ObjectMetadata::uid).toList();
  }

  @Test
  void aSynchronousTreeGoesLeavesFirstAndTheRootLast() {
    ObjectMetadata r = root("r", "Synchronous");
    add("a", "r");
    add("b", "a");
    Preview p = preview(r);
    assertEquals(List.of("b", "a", "r"), uids(p.deleted));
    assertTrue(p.kept.isEmpty());
    assertTrue(p.requests > 0);
  }

  @Test
  void aDependentWithASolidOwnerIsKeptAndARingUnderTheTreeIsReleased() {
    ObjectMetadata r = root("r", "Synchronous");
    add("keeper");
    add("shared", "r", "keeper");
    add("x", "r", "y");
    add("y", "x");
    Preview p = preview(r);
    assertEquals(List.of("r", "x", "y").stream().sorted().toList(), uids(p.deleted).stream().sorted().toList());
    assertEquals("r", p.deleted.get(p.deleted.size() - 1).uid(), "the root goes last");
    assertEquals(1, p.kept.size());
    assertEquals("shared", p.kept.get(0).object().uid());
    assertTrue(p.kept.get(0).why().contains("Widget/keeper"), p.kept.get(0).why());
    assertEquals(1, p.rings.size(), "the ring x <-> y is released as a unit");
  }

  @Test
  void orphaningDeletesTheRootAloneAndSaysTheDependentsAreOrphaned() {
    ObjectMetadata r = root("r", "Orphan");
    add("a", "r");
    Preview p = preview(r);
    assertEquals(List.of("r"), uids(p.deleted));
    assertEquals("a", p.kept.get(0).object().uid());
    assertTrue(p.kept.get(0).why().startsWith("orphaned"), p.kept.get(0).why());
  }

  @Test
  void anotherControllersFinalizerIsWaitedForAndNamed() {
    ObjectMetadata r = root("r", "Synchronous");
    all.add(obj("held").ownedBy("r").finalizers("example.com/hold").build());
    Preview p = preview(r);
    assertEquals(List.of("held", "r"), uids(p.deleted));
    assertEquals(List.of("example.com/hold"), p.heldBy.values().iterator().next());
  }

  @Test
  void aDependentInAnotherNamespaceIsKeptAndItsInvalidReferenceNamed() {
    ObjectMetadata r = root("r", "Synchronous");
    add("a", "r");
    all.add(obj("stray").namespace("elsewhere").ownedBy("r").build());
    Preview p = preview(r);
    assertEquals(List.of("a", "r"), uids(p.deleted), "the invalid reference is not followed");
    assertEquals(1, p.kept.size(), p.kept.toString());
    assertEquals("stray", p.kept.get(0).object().uid());
    assertTrue(p.kept.get(0).why().contains("invalid (the owner lives in another namespace)"), p.kept.get(0).why());
  }

  @Test
  void higherDeletionWavesGoFirst() {
    ObjectMetadata r = root("r", "Synchronous");
    all.add(obj("low").annotate(Names.DELETION_WAVE, "-1").ownedBy("r").build());
    all.add(obj("high").annotate(Names.DELETION_WAVE, "2").ownedBy("r").build());
    add("mid", "r");
    assertEquals(List.of("high", "mid", "low", "r"), uids(preview(r).deleted));
  }

  @Test
  void anObjectNotOptedInIsPreviewedAsLeftToTheBuiltInCollector() {
    ObjectMetadata r = add("r");
    add("a", "r");
    Preview p = preview(r);
    assertTrue(p.propagation.isEmpty());
    assertTrue(p.deleted.isEmpty());
  }

  @Test
  void anUnrelatedObjectBeingDeletedIsNeitherDeletedByThePreviewNorWaitedFor() {
    ObjectMetadata r = root("r", "Synchronous");
    add("a", "r");
    ObjectMetadata elsewhere = new ObjectMetadata(new dev.syncgc.core.model.ObjectRef("v1", "Namespace", null, "old",
        "old"), 1, List.of(), List.of("kubernetes"), Instant.parse("2025-12-31T00:00:00Z"), null, Map.of(), Map.of());
    List<ObjectMetadata> world = new java.util.ArrayList<>(all);
    world.add(elsewhere); // a namespace terminating on its own, read with the cluster-scoped kinds

    Preview p = Preview.of(TestObjects.KINDS, world, r, x -> DeletionSettings.fromAnnotations(x.annotations()),
        Instant.parse("2026-01-01T00:00:00Z"));

    assertEquals(List.of("a", "r"), uids(p.deleted));
    assertTrue(p.heldBy.isEmpty(), p.heldBy.toString());
    assertTrue(p.unsettled.isEmpty(), p.unsettled.toString());
  }

  private ObjectMetadata put(ObjectMetadata o) {
    all.add(o);
    return o;
  }

  private static List<String> uids(Preview.Users users) {
    return uids(users.users());
  }

  @Test
  void usersInsideTheDeletionGoFirstWhateverTheirWavesAndSubtrees() {
    ObjectMetadata r = root("r", "Synchronous");
    put(obj("db").ownedBy("r").annotate(Names.DELETION_WAVE, "2").build());
    put(obj("job").ownedBy("r").uses("widget/db").build());
    add("p", "r");
    add("q", "r");
    put(obj("u").ownedBy("p").uses("widget/x").build());
    add("x", "q");

    Preview p = preview(r);

    List<String> order = uids(p.deleted);
    assertTrue(order.indexOf("job") < order.indexOf("db"), "the user first, though db's wave is higher: " + order);
    assertTrue(order.indexOf("u") < order.indexOf("x"), "a user in another subtree first: " + order);
    assertEquals("r", order.get(order.size() - 1));
    assertEquals(List.of("db", "x"), p.afterUsers.stream().map(u -> u.object().uid()).sorted().toList());
    assertEquals(List.of("job"), uids(p.afterUsers.stream().filter(u -> u.object().uid().equals("db")).findFirst()
        .orElseThrow()));
    assertTrue(p.kept.isEmpty() && p.unsettled.isEmpty() && p.notReached.isEmpty() && p.targetUsers.isEmpty());
    assertTrue(text(p).contains("  Widget/default/db  after its user Widget/default/job"), text(p).toString());
  }

  @Test
  void aTargetInUseWaitsForItsUsersAndThePreviewShowsWhatFollowsOnceTheyNoLongerNameIt() {
    ObjectMetadata r = root("r", "Synchronous");
    add("a", "r");
    put(obj("reader").kind("v1", "ConfigMap").uses("widget/r, widget/a").build());

    Preview p = preview(r);

    assertEquals(List.of("reader"), uids(p.targetUsers));
    assertEquals(List.of(), uids(p.deleted), "the reader still uses a, a dependent: the cascade keeps it");
    assertEquals(List.of("a"), p.kept.stream().map(k -> k.object().uid()).toList());
    assertEquals(List.of("reader"), uids(p.kept.get(0).users()));
    assertEquals(List.of("r"), uids(p.unsettled), "r waits for a (until its deadline)");
    assertEquals(List.of("Widget/default/r is in use: its deletion would wait, with no deadline, before anything of it"
            + " starts, until its user is gone or no longer names it (syncgc.dev/uses): ConfigMap/default/reader (alive)."
            + " Then:",
        "Deleting Widget/default/r (Synchronous, by annotation syncgc.dev/propagation) would delete 0 objects.",
        "It would keep 1:",
        "  Widget/default/a  in use by ConfigMap/default/reader (syncgc.dev/uses), which this deletion does not delete:"
            + " its owner waits for it until the owner's deadline, and a Release deadline lets the owner go without it",
        "Would stay marked as deleted: Widget/default/r"), text(p).subList(0, 5));

    all.set(2, obj("reader").kind("v1", "ConfigMap").uses("widget/r").build());
    Preview once = preview(r);
    assertEquals(List.of("reader"), uids(once.targetUsers));
    assertEquals(List.of("a", "r"), uids(once.deleted), "once the reader no longer names r");
    assertTrue(once.kept.isEmpty() && once.unsettled.isEmpty(), once.kept + " " + once.unsettled);
  }

  @Test
  void aDependentInUseFromOutsideStaysAndWhatIsBehindItIsNamed() {
    ObjectMetadata r = root("r", "Synchronous");
    add("x", "r");
    add("y", "r");
    put(obj("z").ownedBy("r").annotate(Names.DELETION_WAVE, "-1").build());
    put(obj("c").uses("widget/x").build());

    Preview p = preview(r);

    assertEquals(List.of("y"), uids(p.deleted));
    assertEquals(List.of("x"), p.kept.stream().map(k -> k.object().uid()).toList());
    assertEquals(List.of("z"), uids(p.notReached), "wave -1 waits behind x, in wave 0");
    assertEquals(List.of("r"), uids(p.unsettled));
  }

  @Test
  void usersBeingDeletedArePlayedGoingFirstAndUsersThatUseEachOtherGoAsAUnit() {
    ObjectMetadata r = root("r", "Synchronous");
    add("a", "r");
    put(obj("leaving").uses("widget/r").deleting().finalizers("example.com/hold").build());
    Preview p = preview(r);
    assertEquals(List.of("a", "r"), uids(p.deleted));
    assertEquals(1, p.waitsForUsers.size());
    assertEquals(List.of("leaving"), uids(p.waitsForUsers.get(0)));
    assertTrue(p.afterUsers.isEmpty(), "a user outside the deletion is named with what waits for it, not in the order");
    assertTrue(text(p).contains("Waits for users being deleted first, on Widget/default/r: Widget/default/leaving"
        + " (to delete)"), text(p).toString());

    all.clear();
    ObjectMetadata v = put(obj("v").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().uses("widget/w").build());
    put(obj("w").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().deleting().uses("widget/v").build());
    Preview ring = preview(v);
    assertEquals(List.of("v"), uids(ring.deleted));
    assertEquals(1, ring.usersRings.size(), ring.usersRings.toString());
    assertTrue(ring.waitsForUsers.isEmpty(), "w is not waited for: they go as a unit");
    assertTrue(text(ring).contains("Users that use each other, released as a unit: Widget/default/v -> Widget/default/w"
        + " -> Widget/default/v"), text(ring).toString());
  }

  private static List<String> text(Preview p) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
    new PreviewCommand().text(new dev.syncgc.cli.render.Output("text", out, out), p,
        "annotation " + Names.PROPAGATION);
    return bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void aKeptDependentIsListedUnderKeepWithWhyAndWhatItOwnsStaysWithIt() {
    ObjectMetadata r = root("r", "Synchronous");
    all.add(obj("k").ownedBy("r").annotate(Names.KEEP, "true").build());
    add("c", "k");
    add("d", "r");
    Preview p = Preview.of(TestObjects.KINDS, all, r, x -> DeletionSettings.fromAnnotations(x.annotations()),
        x -> x.annotation(Names.KEEP) != null ? "kept: " + Names.KEEP + "=\"" + x.annotation(Names.KEEP) + "\"" : null,
        Instant.parse("2026-01-01T00:00:00Z"));

    assertEquals(List.of("d", "r"), uids(p.deleted));
    assertEquals(List.of("k"), p.kept.stream().map(k -> k.object().uid()).toList());
    assertEquals("kept: syncgc.dev/keep=\"true\"; left with no owner", p.kept.get(0).why());
  }
}
