package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Creates a workload's objects in a namespace, level by level (a level needs its owners' uids),
 * each level's objects in parallel. Every dependent names its owner with blockOwnerDeletion: true;
 * with keepEvery N > 0, the dependents 0, N, 2N... of each level carry {@code syncgc.dev/keep: "true"}.
 */
final class TreeBuilder {
  private final Api api;
  private final Parallel pool;

  TreeBuilder(Api api, Parallel pool) {
    this.api = api;
    this.pool = pool;
  }

  Tree create(String namespace, Workload workload, Map<String, String> rootAnnotations, int keepEvery) {
    List<List<Tree.Node>> levels = new ArrayList<>();
    Set<String> kept = new TreeSet<>();
    String rootUid = api.create(BenchCrd.item(namespace, "root", List.of(), rootAnnotations, Map.of(), 0));
    levels.add(List.of(new Tree.Node("root", rootUid)));
    for (int level = 1; level <= workload.depth(); level++) {
      List<Tree.Node> parents = levels.get(level - 1);
      int fanOut = workload.fanOut();
      String prefix = "l" + level + "-";
      levels.add(pool.map(workload.levelSize(level), i -> {
        Tree.Node parent = parents.get(i / fanOut);
        List<OwnerReference> owners = List.of(BenchCrd.owner(parent.name(), parent.uid()));
        String name = prefix + i;
        Map<String, String> annotations = annotations(i, keepEvery);
        return new Tree.Node(name, api.create(BenchCrd.item(namespace, name, owners, annotations, Map.of(), i)));
      }));
      for (int i = 0; i < workload.levelSize(level); i++) {
        if (!annotations(i, keepEvery).isEmpty()) {
          kept.add(prefix + i);
        }
      }
    }
    return new Tree(namespace, workload, levels, Set.copyOf(kept));
  }

  /** The annotations of dependent i of a level: keep on every keepEvery-th one (0: none). */
  static Map<String, String> annotations(int i, int keepEvery) {
    return keepEvery > 0 && i % keepEvery == 0 ? Map.of(Names.KEEP, "true") : Map.of();
  }
}
