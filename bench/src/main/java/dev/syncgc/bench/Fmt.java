package dev.syncgc.bench;

import java.util.Locale;

/** Number formatting for tables and CSV. */
final class Fmt {
  private Fmt() {}

  /** 200 for 200.0, 1.5 for 1.5. */
  static String num(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  static String seconds(double s) {
    if (!Double.isFinite(s)) {
      return "–";
    }
    return s >= 100 ? String.format(Locale.ROOT, "%.0f s", s)
        : s >= 10 ? String.format(Locale.ROOT, "%.1f s", s) : String.format(Locale.ROOT, "%.2f s", s);
  }

  static String plain(double s, int decimals) {
    return Double.isFinite(s) ? String.format(Locale.ROOT, "%." + decimals + "f", s) : "";
  }

  static String stats(Stats s) {
    if (s.empty()) {
      return "–";
    }
    if (s.count() == 1) {
      return seconds(s.median());
    }
    return seconds(s.median()) + " (" + seconds(s.min()).replace(" s", "") + "–" + seconds(s.max()) + ")";
  }

  static String count(double n) {
    return Double.isFinite(n) ? String.format(Locale.ROOT, "%,d", Math.round(n)) : "–";
  }

  static String mib(double bytes) {
    return Double.isFinite(bytes) ? String.format(Locale.ROOT, "%.0f MiB", bytes / (1024 * 1024)) : "–";
  }

  static String ratio(double r) {
    return Double.isFinite(r) ? String.format(Locale.ROOT, r < 0.1 ? "%.3f" : "%.2f", r) : "–";
  }
}
