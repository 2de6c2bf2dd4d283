package dev.syncgc.bench;

import java.util.List;
import java.util.Set;

/**
 * The objects of one run, level by level (level 0 is the root), and the names of the dependents that
 * carry {@code syncgc.dev/keep: "true"} (none unless the contender keeps some).
 */
record Tree(String namespace, Workload workload, List<List<Node>> levels, Set<String> kept) {
  record Node(String name, String uid) {}

  Node root() {
    return levels.get(0).get(0);
  }

  int objects() {
    return levels.stream().mapToInt(List::size).sum();
  }
}
