package dev.syncgc.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The operator's own account of its heap: {@code -Xlog:gc:file=...} writes one line per collection,
 * e.g. {@code GC(7) Pause Young (Normal) (G1 Evacuation Pause) 151M->23M(256M) 4.1ms}. The largest
 * "before" of a window is the peak heap occupancy in it (the heap only grows between collections); the
 * largest "after" bounds the live data from above (a young collection leaves the old generation as it
 * is, dead objects included). Read from a byte offset, so no sampling is needed.
 */
final class GcLog {
  private static final Pattern SIZES = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");

  /** Peak occupancy before a collection and peak after one, in bytes; collections seen. */
  record Peak(double beforeBytes, double afterBytes, int collections) {
    static final Peak NONE = new Peak(Double.NaN, Double.NaN, 0);
  }

  private GcLog() {}

  static long size(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** Collections logged in file from byte offset on. */
  static Peak since(Path file, long offset) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Peak.NONE;
    }
    byte[] bytes;
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long from = Math.min(offset, f.length());
      bytes = new byte[(int) (f.length() - from)];
      f.seek(from);
      f.readFully(bytes);
    }
    return parse(new String(bytes, StandardCharsets.UTF_8));
  }

  static Peak parse(String text) {
    double before = Double.NaN;
    double after = Double.NaN;
    int n = 0;
    for (String line : text.split("\n")) {
      if (!line.contains(" GC(")) {
        continue;
      }
      Matcher m = SIZES.matcher(line);
      if (!m.find()) {
        continue;
      }
      n++;
      before = max(before, bytes(m.group(1), m.group(2)));
      after = max(after, bytes(m.group(3), m.group(4)));
    }
    return n == 0 ? Peak.NONE : new Peak(before, after, n);
  }

  private static double max(double a, double b) {
    return Double.isNaN(a) ? b : Math.max(a, b);
  }

  private static double bytes(String n, String unit) {
    double v = Double.parseDouble(n);
    return switch (unit) {
      case "K" -> v * 1024;
      case "M" -> v * 1024 * 1024;
      default -> v * 1024 * 1024 * 1024;
    };
  }
}
