package dev.syncgc.bench;

/** A tree of bench objects: fan-out F, depth D (wide: one owner with F direct dependents is F x 1). */
record Workload(String shape, int fanOut, int depth) {
  static Workload wide(int dependents) {
    return new Workload("wide", dependents, 1);
  }

  /** "10x3": fan-out 10, depth 3. */
  static Workload tree(String spec) {
    String[] p = spec.trim().toLowerCase().split("x");
    if (p.length != 2) {
      throw new IllegalArgumentException("tree size '" + spec + "' is not FANOUTxDEPTH, e.g. 10x3");
    }
    int f = Integer.parseInt(p[0]);
    int d = Integer.parseInt(p[1]);
    if (f < 1 || d < 1) {
      throw new IllegalArgumentException("tree size '" + spec + "': fan-out and depth must be at least 1");
    }
    return new Workload("tree", f, d);
  }

  /** How many objects sit at a level (0 = the root). */
  int levelSize(int level) {
    return (int) Math.pow(fanOut, level);
  }

  int objects() {
    int n = 0;
    for (int l = 0; l <= depth; l++) {
      n += levelSize(l);
    }
    return n;
  }

  /**
   * The fewest API requests SPEC lets syncgc send for this workload once the root is deleted: a
   * DELETE per leaf; per inner dependent the finalizer that marks it before its children go, its
   * DELETE and the finalizer's removal; the root's finalizer removal (the root got its finalizer when
   * it was opted in, before the run, and the user's DELETE is not syncgc's). Events, the freshness
   * LISTs and the root's start record are beyond it (docs/performance.md names what each buys).
   */
  int minimumSyncgcRequests() {
    int leaves = levelSize(depth);
    int inner = objects() - leaves - 1;
    return leaves + 3 * inner + 1;
  }

  /** The workload a {@link #name()} names: "wide-2000", "tree-10x3". */
  static Workload named(String name) {
    if (name.startsWith("wide-")) {
      return wide(Integer.parseInt(name.substring(5)));
    }
    if (name.startsWith("tree-")) {
      return tree(name.substring(5));
    }
    throw new IllegalArgumentException("no workload is named '" + name + "'");
  }

  String name() {
    return shape.equals("wide") ? "wide-" + fanOut : "tree-" + fanOut + "x" + depth;
  }

  String describe() {
    return shape.equals("wide") ? "one owner, " + fanOut + " dependents"
        : "fan-out " + fanOut + ", depth " + depth;
  }
}
