package dev.syncgc.bench;

import java.util.Collection;
import java.util.List;

/** Median, min and max of the finite values; NaN when there are none. */
record Stats(int count, double median, double min, double max) {
  static Stats of(Collection<Double> values) {
    List<Double> v = values.stream().filter(d -> d != null && Double.isFinite(d)).sorted().toList();
    if (v.isEmpty()) {
      return new Stats(0, Double.NaN, Double.NaN, Double.NaN);
    }
    int n = v.size();
    double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    return new Stats(n, median, v.get(0), v.get(n - 1));
  }

  boolean empty() {
    return count == 0;
  }
}
