package dev.syncgc.core.graph;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.usage.Uses;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SPEC "In use": {@code syncgc.dev/uses} names at most 100 objects in at most 16 KiB; a longer one
 * protects nothing and is not indexed, so that no user makes the graph grow with what it writes there.
 */
class UsageBoundsTest {

  @Test
  void anOverlongUsesAnnotationProtectsNothing() {
    DependencyGraph g = TestObjects.graph();
    ObjectMetadata x = obj("x").name("x").syncFinalizer().build();
    StringBuilder many = new StringBuilder("widget/x");
    for (int i = 0; i < Uses.MAX_NAMED; i++) {
      many.append(", widget/w").append(i);
    }
    g.upsert(x);
    g.upsert(obj("y").uses(many.toString()).build());
    assertEquals(List.of(), g.usersOf(x), "101 objects named: the first one is not protected either");
    assertFalse(g.anyUses(), "nothing indexed");
    g.upsert(obj("z").uses("widget/x").build());
    assertEquals(List.of("z"), g.usersOf(x).stream().map(ObjectMetadata::uid).toList());
  }

  /** The heap of the graph holding 100 users whose annotation is 256 KiB each, printed. */
  @Test
  void aHugeUsesAnnotationCostsTheGraphNoMoreThanAShortOne() {
    int users = 100;
    List<ObjectMetadata> objects = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      StringBuilder value = new StringBuilder();
      for (int i = 0; value.length() < 256 * 1024 - 20; i++) {
        value.append("cm/u").append(u).append("-n").append(i).append(',');
      }
      objects.add(obj("user-" + u).uses(value.toString()).build());
    }
    long before = usedAfterGc();
    DependencyGraph g = TestObjects.graph();
    objects.forEach(g::upsert);
    long after = usedAfterGc();
    long retained = after - before;
    System.out.printf("graph of %d users with a 256 KiB syncgc.dev/uses each (the annotations' strings not"
        + " counted): %,d bytes retained, %,d B per user%n", users, retained, retained / users);
    assertEquals(users, g.size());
    Reference.reachabilityFence(g);
    assertTrue(retained < 2 * 1024 * 1024, "retained " + retained + " bytes");
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
