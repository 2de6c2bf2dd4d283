package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import java.util.Map;

/**
 * The objects of an in-use run (SPEC "In use"): owners {@code o-K}, each with dependents {@code o-K-d-I}; with
 * usage edges, siblings name each other in {@code syncgc.dev/uses}, in one of two shapes:
 * <ul>
 *   <li>{@link Shape#CHAIN}: dependent I names dependent I+1 (the last one names none): inside the cascade each
 *       dependent must be gone before the next is deleted, so an owner's dependents go one at a time (the worst
 *       case: a plan per link);
 *   <li>{@link Shape#STAR}: every dependent but the first names dependent 0 (many workloads using one Secret):
 *       the users go together, then the used one.
 * </ul>
 */
final class SiblingUses {
  enum Shape { CHAIN, STAR }

  private SiblingUses() {}

  static String owner(int k) {
    return "o-" + k;
  }

  static String dependent(int k, int i) {
    return "o-" + k + "-d-" + i;
  }

  /** The sibling dependent i uses, or -1. */
  static int used(Shape shape, int i, int dependents) {
    return switch (shape) {
      case CHAIN -> i + 1 < dependents ? i + 1 : -1;
      case STAR -> i > 0 ? 0 : -1;
    };
  }

  /** Dependent i's annotations among {@code dependents} siblings: its use of a sibling, if edges are asked. */
  static Map<String, String> annotations(Shape shape, boolean edges, int k, int i, int dependents) {
    int used = used(shape, i, dependents);
    return edges && used >= 0 ? Map.of(Names.USES, "benchitem/" + dependent(k, used)) : Map.of();
  }

  /**
   * Dependent i's deletion wave giving the order its uses give (every user in a higher wave than what it
   * uses): the same steps one after another, without a use.
   */
  static Map<String, String> wave(Shape shape, int i, int dependents) {
    int wave = switch (shape) {
      case CHAIN -> dependents - 1 - i;
      case STAR -> i > 0 ? 1 : 0;
    };
    return Map.of(Names.DELETION_WAVE, Integer.toString(wave));
  }

  /** The (user, used) pairs of one owner: dependents - 1 in either shape. */
  static int pairs(int dependents) {
    return dependents - 1;
  }

  /**
   * Pairs (user, used) whose used object went first, from the order in which the objects' DELETED events
   * arrived ({@code order} maps a name to its position; a name not in it counts as not seen, and its pairs are
   * not counted).
   */
  static int violations(Shape shape, Map<String, Integer> order, int owners, int dependents) {
    int n = 0;
    for (int k = 0; k < owners; k++) {
      for (int i = 0; i < dependents; i++) {
        int usedIndex = used(shape, i, dependents);
        if (usedIndex < 0) {
          continue;
        }
        Integer user = order.get(dependent(k, i));
        Integer used = order.get(dependent(k, usedIndex));
        if (user != null && used != null && used < user) {
          n++;
        }
      }
    }
    return n;
  }
}
