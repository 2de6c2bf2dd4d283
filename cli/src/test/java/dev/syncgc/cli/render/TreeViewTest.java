package dev.syncgc.cli.render;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.syncgc.cli.cluster.Readiness;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TreeViewTest {
  @Test
  @SuppressWarnings("unchecked")
  void aKeptObjectIsMarkedWithWhy() {
    ObjectMetadata r = obj("r").build();
    DependencyGraph g = graphOf(r, obj("k").ownedBy("r").annotate("syncgc.dev/keep", "true").build(),
        obj("d").ownedBy("r").build());
    Instant t = Instant.parse("2026-01-01T00:00:00Z");

    TreeView.Node root = new TreeView(g, uid -> t, m -> null,
        m -> m.annotation("syncgc.dev/keep") != null ? "kept: syncgc.dev/keep=\"true\"" : null, t.plusSeconds(90)).below(r);

    assertEquals(List.of(
        "Widget/r  alive  90s",
        "├── Widget/d  alive  90s",
        "└── Widget/k  alive  90s  (kept: syncgc.dev/keep=\"true\")"), TreeView.lines(root));
    assertEquals("kept: syncgc.dev/keep=\"true\"", ((List<Map<String, Object>>) root.model("dependents")
        .get("dependents")).get(1).get("note"));
  }

  /** kubectl-tree's READY: the Ready condition's status (with its reason when not True), nothing without one. */
  @Test
  @SuppressWarnings("unchecked")
  void eachObjectShowsItsReadyConditionAndNothingWithoutOne() {
    ObjectMetadata r = obj("r").build();
    DependencyGraph g = graphOf(r, obj("a").ownedBy("r").build(), obj("b").ownedBy("r").build(),
        obj("c").ownedBy("r").build());
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    Map<String, Readiness.Ready> ready = Map.of("a", new Readiness.Ready("True", "Done"),
        "b", new Readiness.Ready("False", "CrashLoopBackOff"), "c", new Readiness.Ready("Unknown", null));

    TreeView.Node root = new TreeView(g, uid -> t, m -> null, m -> null, m -> ready.get(m.uid()), t.plusSeconds(90))
        .below(r);

    assertEquals(List.of(
        "Widget/r  alive  90s",
        "├── Widget/a  alive  Ready=True  90s",
        "├── Widget/b  alive  Ready=False (CrashLoopBackOff)  90s",
        "└── Widget/c  alive  Ready=Unknown  90s"), TreeView.lines(root));
    Map<String, Object> model = root.model("dependents");
    assertFalse(model.containsKey("ready"));
    List<Map<String, Object>> children = (List<Map<String, Object>>) model.get("dependents");
    assertEquals("True", children.get(0).get("ready"));
    assertEquals("Done", children.get(0).get("readyReason"));
    assertEquals("False", children.get(1).get("ready"));
    assertEquals("CrashLoopBackOff", children.get(1).get("readyReason"));
    assertFalse(children.get(2).containsKey("readyReason"));
  }

  @Test
  void aDiamondIsShownOnceAndARingIsMarkedWithItsPath() {
    ObjectMetadata r = obj("r").build();
    DependencyGraph g = graphOf(r, obj("a").ownedBy("r").build(), obj("b").ownedBy("r").build(),
        obj("d").ownedBy("a", "b").build(), obj("x").ownedBy("r", "y").build(), obj("y").ownedBy("x").build());
    Instant t = Instant.parse("2026-01-01T00:00:00Z");

    List<String> lines = TreeView.lines(new TreeView(g, uid -> t, m -> null, t.plusSeconds(90)).below(r));

    assertEquals(List.of(
        "Widget/r  alive  90s",
        "├── Widget/a  alive  90s",
        "│   └── Widget/d  alive  90s",
        "├── Widget/b  alive  90s",
        "│   └── Widget/d  alive  90s  (shown above: it has several owners here)",
        "└── Widget/x  alive  90s",
        "    └── Widget/y  alive  90s",
        "        └── Widget/x  alive  90s  (cycle: Widget/x -> Widget/y -> Widget/x)"), lines);
  }

  @Test
  void eachObjectSaysWhatItUsesAndWhoUsesItApartFromOwnershipAndNamesThatResolveToNothingWithWhy() {
    ObjectMetadata r = obj("r").syncFinalizer().build();
    ObjectMetadata c = obj("c").kind("v1", "ConfigMap").uses("widget/r").build();
    DependencyGraph g = graphOf(r, c, obj("a").ownedBy("r").uses("Widgets/b, configmap/missing, gadget/g, x/y/z").build(),
        obj("b").ownedBy("r").deleting().syncFinalizer().build(), obj("d").ownedBy("b").build());
    Instant t = Instant.parse("2026-01-01T00:00:00Z");

    TreeView.Node root = new TreeView(g, uid -> t, m -> null, t.plusSeconds(90)).below(r);

    assertEquals(List.of(
        "Widget/r  alive  90s  finalizers [syncgc.dev/GarbageCollectionInProgress]",
        "│  ⇠ used by ConfigMap/c  alive",
        "├── Widget/a  alive  90s",
        "│      ⇢ uses nothing: \"x/y/z\" names another namespace: a used object is in the user's own namespace"
            + " (or cluster-scoped), named KIND[.GROUP]/NAME",
        "│      ⇢ uses Widget/b  marked as deleted",
        "│      ⇢ uses ConfigMap/missing  not there (yet)",
        "│      ⇢ uses nothing: \"gadget/g\": kind \"gadget\" is served by more than one group: gadgets.example.com,"
            + " gadgets.other.example.com; name it with its group, e.g. gadget.example.com",
        "└── Widget/b  marked as deleted  90s  finalizers [syncgc.dev/GarbageCollectionInProgress]",
        "    │  ⇠ used by Widget/a  alive",
        "    └── Widget/d  alive  90s"), TreeView.lines(root));
    Map<String, Object> a = children(root.model("dependents")).get(0);
    assertEquals(List.of(Map.of("error", "\"x/y/z\" names another namespace: a used object is in the user's own"
            + " namespace (or cluster-scoped), named KIND[.GROUP]/NAME"),
        Map.of("apiVersion", "example.com/v1", "kind", "Widget", "namespace", "default", "name", "b", "uid", "b",
            "state", "marked as deleted"),
        Map.of("group", "", "kind", "ConfigMap", "namespace", "default", "name", "missing", "state", "not there"),
        Map.of("error", "\"gadget/g\": kind \"gadget\" is served by more than one group: gadgets.example.com,"
            + " gadgets.other.example.com; name it with its group, e.g. gadget.example.com")), a.get("uses"));
    assertEquals(List.of(), a.get("usedBy"));
    assertEquals(List.of(Map.of("apiVersion", "v1", "kind", "ConfigMap", "namespace", "default", "name", "c", "uid", "c",
        "state", "alive")), root.model("dependents").get("usedBy"));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> children(Map<String, Object> node) {
    return (List<Map<String, Object>>) node.get("dependents");
  }

  @Test
  void agesReadLikeKubectls() {
    assertEquals("59s", TreeView.human(java.time.Duration.ofSeconds(59)));
    assertEquals("5m", TreeView.human(java.time.Duration.ofMinutes(5)));
    assertEquals("3h", TreeView.human(java.time.Duration.ofHours(3)));
    assertEquals("4d", TreeView.human(java.time.Duration.ofDays(4)));
  }
}
