package dev.syncgc.e2e.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Small helpers to show the end of a log in a failure message. */
public final class Logs {
  private Logs() {}

  public static String tail(List<String> lines, int count) {
    return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }

  public static String tail(Path file, int count) {
    try {
      // Malformed bytes must not hide the log: decode leniently.
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      return tail(text.lines().toList(), count);
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }
}
