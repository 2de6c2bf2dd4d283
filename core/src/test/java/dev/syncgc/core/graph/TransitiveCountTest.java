package dev.syncgc.core.graph;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.TestObjects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link DependencyGraph#transitiveDependentCount} on a 100,000-object subtree: the count, and how
 * long the graph's monitor is held meanwhile (printed, never asserted: a figure, not a bound).
 */
class TransitiveCountTest {
  private static final int CHILDREN = 100;
  private static final int GRANDCHILDREN_EACH = 1_000;

  /** root -> 100 children -> 1,000 grandchildren each: 100,100 dependents. */
  private static DependencyGraph wideSubtree() {
    DependencyGraph graph = TestObjects.graph();
    graph.upsert(obj("root").build());
    for (int c = 0; c < CHILDREN; c++) {
      graph.upsert(obj("c" + c).ownedBy("root").build());
      for (int g = 0; g < GRANDCHILDREN_EACH; g++) {
        graph.upsert(obj("c" + c + "-g" + g).ownedBy("c" + c).build());
      }
    }
    return graph;
  }

  @Test
  void countsAHundredThousandDependentsAndPrintsHowLongTheMonitorIsHeld() throws Exception {
    DependencyGraph graph = wideSubtree();
    int expected = CHILDREN + CHILDREN * GRANDCHILDREN_EACH;
    for (int warmUp = 0; warmUp < 5; warmUp++) {
      assertEquals(expected, graph.transitiveDependentCount("root"));
    }

    AtomicBoolean counting = new AtomicBoolean(true);
    AtomicLong longestWaitNanos = new AtomicLong();
    AtomicLong probes = new AtomicLong();
    // another thread (an informer callback, a worker) wanting the graph meanwhile
    CompletableFuture<Void> prober = CompletableFuture.runAsync(() -> {
      while (counting.get()) {
        long start = System.nanoTime();
        synchronized (graph) {
          probes.incrementAndGet();
        }
        longestWaitNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
      }
    });
    long start = System.nanoTime();
    AtomicLong sectionStart = new AtomicLong(start);
    AtomicLong longestSectionNanos = new AtomicLong();
    AtomicLong sections = new AtomicLong(1);
    int count = graph.transitiveDependentCount("root", () -> {
      long now = System.nanoTime();
      longestSectionNanos.accumulateAndGet(now - sectionStart.get(), Math::max);
      sectionStart.set(now);
      sections.incrementAndGet();
    });
    long totalNanos = System.nanoTime() - start;
    counting.set(false);
    prober.join();

    assertEquals(expected, count);
    System.out.printf("transitiveDependentCount over %,d dependents: %.1f ms in all; longest section (monitor"
        + " held) %.2f ms of %d, %.2f ms on average; another thread waited at most %.2f ms for the monitor meanwhile (%,d acquisitions)%n",
        count, totalNanos / 1e6, longestSectionNanos.get() / 1e6, sections.get(),
        totalNanos / 1e6 / sections.get(), longestWaitNanos.get() / 1e6, probes.get());
  }

  /** Between sections another thread gets the monitor: informers and workers are not held up. */
  @Test
  void theMonitorIsFreeBetweenSectionsOfTheTraversal() throws Exception {
    DependencyGraph graph = wideSubtree();
    AtomicLong sections = new AtomicLong();

    int count = graph.transitiveDependentCount("root", () -> {
      sections.incrementAndGet();
      if (Thread.holdsLock(graph)) {
        throw new AssertionError("the monitor is held between sections");
      }
      // a thread that needs the graph (an informer's upsert) gets it now, not after the traversal
      assertEquals(CHILDREN * (GRANDCHILDREN_EACH + 1) + 1,
          CompletableFuture.supplyAsync(graph::size).orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join());
    });

    assertEquals(CHILDREN + CHILDREN * GRANDCHILDREN_EACH, count);
    // a section ends once it has followed SECTION_EDGES references, after the object it is at
    long minimum = (CHILDREN + CHILDREN * GRANDCHILDREN_EACH) / (DependentCount.SECTION_EDGES + GRANDCHILDREN_EACH);
    assertEquals(true, sections.get() >= minimum, sections.get() + " sections, expected at least " + minimum);
  }

  /**
   * Objects added and removed between sections: each object below the root for the whole traversal
   * is counted once; the changed ones may or may not be.
   */
  @Test
  void changesBetweenSectionsNeitherBreakTheTraversalNorCountAnythingTwice() {
    DependencyGraph graph = wideSubtree();
    AtomicLong step = new AtomicLong();

    int count = graph.transitiveDependentCount("root", () -> {
      long n = step.incrementAndGet();
      graph.upsert(obj("new" + n).ownedBy("c" + (n % CHILDREN)).build());
      graph.remove("c" + (n % CHILDREN) + "-g" + n);
      graph.upsert(obj("c" + ((n + 1) % CHILDREN) + "-g0").rv(n + 1).ownedBy("c" + ((n + 1) % CHILDREN)).build());
    });

    int before = CHILDREN + CHILDREN * GRANDCHILDREN_EACH;
    long changed = step.get();
    assertEquals(true, count >= before - changed && count <= before + changed,
        count + " counted, " + before + " before, " + changed + " added and as many removed");
  }
}
