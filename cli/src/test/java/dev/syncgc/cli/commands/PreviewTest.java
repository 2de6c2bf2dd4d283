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
}
