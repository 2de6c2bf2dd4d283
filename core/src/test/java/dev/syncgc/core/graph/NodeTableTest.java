package dev.syncgc.core.graph;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the graph shares between objects: equal values only, one instance. */
class NodeTableTest {
  @Test
  void dependentsNamingOneOwnerAlikeShareOneReferenceList() {
    DependencyGraph g = graphOf(obj(new String("o")).build(), obj("a").ownedBy(new String("o")).build(),
        obj("b").ownedBy(new String("o")).build());

    assertSame(g.get("a").owners(), g.get("b").owners());
  }

  @Test
  void aReferenceThatDiffersGetsItsOwnListWithTheSharedNameAndEqualContent() {
    OwnerLink other = new OwnerLink(new String("o"), "example.com/v2", "Widget", new String("o"));
    DependencyGraph g = graphOf(obj("o").build(), obj("a").ownedBy("o").build(), obj("b").ownedBy(other).build());

    assertNotSame(g.get("a").owners(), g.get("b").owners());
    assertEquals(List.of(other), g.get("b").owners());
    assertSame(g.get("o").ref().name(), g.get("b").owners().get(0).name());
  }

  @Test
  void equalLabelMapsAndFinalizerListsAreHeldOnce() {
    DependencyGraph g = new DependencyGraph(dev.syncgc.core.TestObjects.KINDS);
    g.upsert(withLabels(obj("a").finalizers("f").build(), new HashMap<>(Map.of("app", "x"))));
    g.upsert(withLabels(obj("b").finalizers("f").build(), new HashMap<>(Map.of("app", "x"))));

    assertSame(g.get("a").labels(), g.get("b").labels());
    assertSame(g.get("a").finalizers(), g.get("b").finalizers());
  }

  private static ObjectMetadata withLabels(ObjectMetadata o, Map<String, String> labels) {
    return new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
        o.deletionGracePeriodSeconds(), o.annotations(), labels);
  }
}
