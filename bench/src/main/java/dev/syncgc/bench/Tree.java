package dev.syncgc.bench;

import java.util.List;

/** The objects of one run, level by level (level 0 is the root). */
record Tree(String namespace, Workload workload, List<List<Node>> levels) {
  record Node(String name, String uid) {}

  Node root() {
    return levels.get(0).get(0);
  }

  int objects() {
    return levels.stream().mapToInt(List::size).sum();
  }
}
