package dev.syncgc.bench;

import java.util.Map;

/**
 * The objects of an in-use run (SPEC "In use"): owners {@code o-K}, each with dependents {@code o-K-d-I}; with
 * usage edges, dependent I of an owner names dependent I+1 of the same owner in {@code syncgc.dev/uses} (the
 * last one names none), a chain: inside the cascade each dependent must be gone before the next is deleted.
 */
final class UsageChain {
  static final String USES = "syncgc.dev/uses";

  private UsageChain() {}

  static String owner(int k) {
    return "o-" + k;
  }

  static String dependent(int k, int i) {
    return "o-" + k + "-d-" + i;
  }

  /** Dependent i's annotations among {@code dependents} siblings: its use of dependent i + 1, if edges are asked. */
  static Map<String, String> annotations(boolean edges, int k, int i, int dependents) {
    return edges && i + 1 < dependents ? Map.of(USES, "benchitem/" + dependent(k, i + 1)) : Map.of();
  }

  /**
   * Pairs (user, used) of the chain whose used object went first, from the order in which the objects'
   * DELETED events arrived ({@code order} maps a name to its position; a name not in it counts as not seen,
   * and its pairs are not counted).
   */
  static int violations(Map<String, Integer> order, int owners, int dependents) {
    int n = 0;
    for (int k = 0; k < owners; k++) {
      for (int i = 0; i + 1 < dependents; i++) {
        Integer user = order.get(dependent(k, i));
        Integer used = order.get(dependent(k, i + 1));
        if (user != null && used != null && used < user) {
          n++;
        }
      }
    }
    return n;
  }
}
