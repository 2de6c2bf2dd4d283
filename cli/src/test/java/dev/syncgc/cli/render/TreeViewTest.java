package dev.syncgc.cli.render;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TreeViewTest {
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
  void agesReadLikeKubectls() {
    assertEquals("59s", TreeView.human(java.time.Duration.ofSeconds(59)));
    assertEquals("5m", TreeView.human(java.time.Duration.ofMinutes(5)));
    assertEquals("3h", TreeView.human(java.time.Duration.ofHours(3)));
    assertEquals("4d", TreeView.human(java.time.Duration.ofDays(4)));
  }
}
