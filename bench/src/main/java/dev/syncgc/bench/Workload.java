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

  String name() {
    return shape.equals("wide") ? "wide-" + fanOut : "tree-" + fanOut + "x" + depth;
  }

  String describe() {
    return shape.equals("wide") ? "one owner, " + fanOut + " dependents"
        : "fan-out " + fanOut + ", depth " + depth;
  }
}
