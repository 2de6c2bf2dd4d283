package dev.syncgc.core.graph;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Heap retained by a {@link DependencyGraph} per object, and what it is made of (docs/benchmarks.md,
 * "Graph memory"). Not a test: a measurement, run by hand.
 *
 * <pre>java -Xmx1g -cp operator/target/classes:operator/target/test-classes \
 *   dev.syncgc.core.graph.GraphMemory wide|tree N</pre>
 *
 * <p>Objects are made as kube/MetadataReader makes them from a watch event: fresh strings for every
 * name and uid (the owner's in a reference too, as JSON parsing gives them), the interned apiVersion,
 * kind, namespace, label keys and values and finalizer, one owner reference each (wide: every object
 * owned by one root; tree: each owned by object (i-1)/10), two labels and syncgc's finalizer.
 */
public final class GraphMemory {
  private static final String API_VERSION = "example.com/v1";
  private static final String KIND = "Widget"; // namespaced and tracked in TestObjects.KINDS
  private static final String NAMESPACE = "bench-0";
  private static final Map<String, String> LABELS = Map.of(
      "app.kubernetes.io/name", "bench", "app.kubernetes.io/instance", "run-1");

  public static void main(String[] args) throws Exception {
    String shape = args[0];
    int n = Integer.parseInt(args[1]);
    long before = usedAfterFullGc();
    long start = System.nanoTime();
    DependencyGraph graph = build(shape, n);
    long buildNanos = System.nanoTime() - start;
    long after = usedAfterFullGc();
    System.out.printf("%s %,d objects: built in %d ms, %,d bytes retained, %d B per object (graph size %d)%n",
        shape, n, buildNanos / 1_000_000, after - before, (after - before) / n, graph.size());
    histogram(25);
    System.out.println(graph.size()); // keeps the graph live through the histogram
  }

  private static DependencyGraph build(String shape, int n) {
    DependencyGraph graph = new DependencyGraph(TestObjects.KINDS); // asked only by queries
    String[] uids = new String[n];
    for (int i = 0; i < n; i++) {
      uids[i] = UUID.randomUUID().toString();
      int owner = i == 0 ? -1 : shape.equals("wide") ? 0 : (i - 1) / 10;
      List<OwnerLink> owners = owner < 0 ? List.of()
          : List.of(new OwnerLink(new String(uids[owner]), API_VERSION, KIND, "item-" + owner));
      graph.upsert(new ObjectMetadata(
          new ObjectRef(API_VERSION, KIND, NAMESPACE, "item-" + i, new String(uids[i])),
          1_000_000L + i, owners, List.of(Names.FINALIZER), null, null, Map.of(), new HashMap<>(LABELS)));
    }
    return graph;
  }

  private static long usedAfterFullGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** The largest classes of the live heap, as {@code jcmd <pid> GC.class_histogram} lists them. */
  private static void histogram(int lines) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(ProcessHandle.current().pid()),
        "GC.class_histogram").redirectErrorStream(true).start();
    try (InputStream in = p.getInputStream()) {
      String[] out = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
      for (int i = 0; i < Math.min(out.length, lines + 3); i++) {
        System.out.println(out[i]);
      }
      System.out.println(out[out.length - 1]);
    }
    p.waitFor();
  }
}
