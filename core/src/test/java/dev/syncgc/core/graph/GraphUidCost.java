package dev.syncgc.core.graph;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * CPU of asking the graph by uid text (docs/benchmarks.md, "CPU of the uid as text"). Not a test: a
 * measurement, run by hand. Each measured loop is a method of its own, so that it is compiled as the
 * graph's callers are (not on-stack replaced); the best of 15 passes is printed.
 *
 * <pre>java -Xmx2g -cp operator/target/classes:operator/target/test-classes \
 *   dev.syncgc.core.graph.GraphUidCost</pre>
 */
public final class GraphUidCost {
  private static final int N = 100_000;
  private static final int PASSES = 15;

  public static void main(String[] args) {
    String[] uids = new String[N];
    List<ObjectMetadata> objects = new ArrayList<>(N);
    for (int i = 0; i < N; i++) {
      uids[i] = UUID.randomUUID().toString();
      objects.add(TestObjects.obj(uids[i]).ownedBy(new String(uids[i / 10])).build()); // trees of 10
    }
    DependencyGraph graph = TestObjects.graph();
    objects.forEach(graph::upsert);
    List<String> order = new ArrayList<>(Arrays.asList(uids));
    Collections.shuffle(order, new Random(1));
    List<ObjectMetadata> held = new ArrayList<>(graph.snapshot());
    Collections.shuffle(held, new Random(2));
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    long sink = 0;
    for (int pass = 0; pass < PASSES; pass++) {
      String[] texts = order.stream().map(u -> new String(u.toCharArray())).toArray(String[]::new);
      long t0 = System.nanoTime();
      sink += getByText(graph, texts);
      long t1 = System.nanoTime();
      sink += askOfHeld(graph, held);
      long t2 = System.nanoTime();
      sink += upsertAll(objects);
      long t3 = System.nanoTime();
      best[0] = Math.min(best[0], (t1 - t0) / (double) N);
      best[1] = Math.min(best[1], (t2 - t1) / (double) N);
      best[2] = Math.min(best[2], (t3 - t2) / (double) N);
    }
    System.out.printf("best of %d, ns per call: get(uid) %.0f, get(o.uid()) + dependentsOf(o.uid()) %.0f, "
        + "upsert %.0f (%d)%n", PASSES, best[0], best[1], best[2], sink % 2);
  }

  /** uids as new text, as a watch event or a request brings them. */
  private static long getByText(DependencyGraph graph, String[] texts) {
    long sum = 0;
    for (String uid : texts) {
      sum += graph.get(uid).resourceVersion();
    }
    return sum;
  }

  /** As the engine asks about an object it holds. */
  private static long askOfHeld(DependencyGraph graph, List<ObjectMetadata> held) {
    long sum = 0;
    for (ObjectMetadata o : held) {
      sum += graph.get(o.uid()).resourceVersion() + graph.dependentsOf(o.uid()).size();
    }
    return sum;
  }

  private static long upsertAll(List<ObjectMetadata> objects) {
    DependencyGraph graph = TestObjects.graph();
    objects.forEach(graph::upsert);
    return graph.size();
  }
}
