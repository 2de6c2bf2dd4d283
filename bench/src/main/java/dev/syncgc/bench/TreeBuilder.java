package dev.syncgc.bench;

import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Creates a workload's objects in a namespace, level by level (a level needs its owners' uids),
 * each level's objects in parallel. Every dependent names its owner with blockOwnerDeletion: true.
 */
final class TreeBuilder {
  private final Api api;
  private final Parallel pool;

  TreeBuilder(Api api, Parallel pool) {
    this.api = api;
    this.pool = pool;
  }

  Tree create(String namespace, Workload workload, Map<String, String> rootAnnotations) {
    List<List<Tree.Node>> levels = new ArrayList<>();
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
        return new Tree.Node(name, api.create(BenchCrd.item(namespace, name, owners, Map.of(), Map.of(), i)));
      }));
    }
    return new Tree(namespace, workload, levels);
  }
}
