package dev.syncgc.e2e;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Usage edges (SPEC "In use") added to a differential world on syncgc's side only: the built-in collector
 * has no usage, so survivors are compared for ownership alone, and the order usage asks for is judged
 * from etcd revisions. Edges join objects the built-in collector deleted (a user that survives would
 * rightly keep what it uses), drawn at random, a quarter of them mutual (a ring of use).
 *
 * <p>What is judged: a user Y of X is gone before X, unless Y owns X (directly or further up: X's owner
 * above it being deleted does not hold it, ownership goes first) or the two are on one cycle of "goes
 * first" (dependents before their owners, users before what they use), which is released as a unit.
 *
 * @param edges (user, used) pairs by name ({@code o1}.., {@code u1}..)
 */
record UsageEdges(List<List<String>> edges) {
  static final String WIDGETS = "widgets.test.syncgc.dev";

  /** @param deleted the objects the built-in collector deleted, the root excepted */
  static UsageEdges random(long seed, List<String> deleted) {
    Random r = new Random(seed ^ 0x5eedL); // apart from the world's draws: a kept seed's world stays as found
    List<List<String>> edges = new ArrayList<>();
    if (deleted.size() < 2) {
      return new UsageEdges(edges);
    }
    int count = 1 + r.nextInt(deleted.size());
    for (int e = 0; e < count; e++) {
      String user = deleted.get(r.nextInt(deleted.size()));
      String used = deleted.get(r.nextInt(deleted.size()));
      if (!user.equals(used) && !edges.contains(List.of(user, used))) {
        edges.add(List.of(user, used));
        if (r.nextInt(4) == 0 && !edges.contains(List.of(used, user))) {
          edges.add(List.of(used, user));
        }
      }
    }
    return new UsageEdges(edges);
  }

  /** These edges and {@code fixed} (a world's own uses), each once. */
  UsageEdges with(List<List<String>> fixed) {
    List<List<String>> all = new ArrayList<>(fixed);
    edges.stream().filter(e -> !all.contains(e)).forEach(all::add);
    return new UsageEdges(all);
  }

  /** Writes each user's {@code syncgc.dev/uses} (resource.group/name, as kubectl names objects). */
  void annotate(KubernetesClient client, String ns) {
    Map<String, String> uses = new TreeMap<>();
    for (List<String> e : edges) {
      uses.merge(e.get(0), WIDGETS + "/" + e.get(1), (a, b) -> a + ", " + b);
    }
    uses.forEach((user, value) -> MetadataPatches.annotate(Widgets.widget(client, ns, user), SpecNames.USES, value));
  }

  /**
   * The pairs deleted in the wrong order, from the deletions' revisions.
   *
   * @param owners each object's owners by name (owners outside the map, co-owners, are not judged)
   * @param stats where to count what was judged
   */
  List<String> outOfOrder(Map<String, List<String>> owners, DeletionOrder order, Map<String, Integer> stats) {
    List<String> names = new ArrayList<>(owners.keySet());
    int n = names.size();
    boolean[][] first = new boolean[n][n]; // first[a][b]: a must be gone before b
    for (int i = 0; i < n; i++) {
      for (String owner : owners.get(names.get(i))) {
        if (owners.containsKey(owner)) {
          first[i][names.indexOf(owner)] = true; // a dependent before its owner
        }
      }
    }
    boolean[][] above = closure(transpose(first)); // above[a][b]: a owns b, directly or further up
    List<int[]> judged = new ArrayList<>();
    for (List<String> e : edges) {
      int user = names.indexOf(e.get(0));
      int used = names.indexOf(e.get(1));
      if (!above[user][used]) {
        first[user][used] = true;
        judged.add(new int[] {user, used});
      }
    }
    boolean[][] reach = closure(first);
    List<String> wrong = new ArrayList<>();
    for (int[] p : judged) {
      if (reach[p[1]][p[0]]) {
        stats.merge("usage pairs on a cycle (a unit)", 1, Integer::sum);
        continue;
      }
      stats.merge("usage pairs judged", 1, Integer::sum);
      long user = revision(order, names.get(p[0]));
      long used = revision(order, names.get(p[1]));
      if (user > used) {
        wrong.add(names.get(p[0]) + " (a user, at revision " + user + ") went after " + names.get(p[1]) + " (at " + used + ")");
      }
    }
    stats.merge("usage pairs owned by their user", edges.size() - judged.size(), Integer::sum);
    return wrong;
  }

  private static long revision(DeletionOrder order, String name) {
    return order.deletions().stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError(name + " was not seen deleted: " + order.deletions())).resourceVersion();
  }

  private static boolean[][] transpose(boolean[][] m) {
    boolean[][] t = new boolean[m.length][m.length];
    for (int a = 0; a < m.length; a++) {
      for (int b = 0; b < m.length; b++) {
        t[b][a] = m[a][b];
      }
    }
    return t;
  }

  /** Transitive closure (Warshall). */
  private static boolean[][] closure(boolean[][] m) {
    int n = m.length;
    boolean[][] c = new boolean[n][];
    for (int a = 0; a < n; a++) {
      c[a] = m[a].clone();
    }
    for (int k = 0; k < n; k++) {
      for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
          c[a][b] |= c[a][k] && c[k][b];
        }
      }
    }
    return c;
  }

  @Override
  public String toString() {
    return edges.stream().map(e -> e.get(0) + "->" + e.get(1)).collect(Collectors.joining(" ", "uses[", "]"));
  }
}
