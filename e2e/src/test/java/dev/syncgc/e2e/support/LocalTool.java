package dev.syncgc.e2e.support;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds a command-line tool the tests run without a cluster ({@code helm}, {@code promtool}): the
 * path in a setting (system property or environment), else the tool on {@code PATH}, else in
 * {@code $SYNCGC_CACHE/tools} (default {@code ~/.cache/syncgc/tools}), where
 * {@code e2e/cluster.sh build} links it.
 */
final class LocalTool {
  private LocalTool() {}

  static String locate(String name, String setting) {
    String configured = TestCluster.setting(setting);
    if (configured != null) {
      return configured;
    }
    List<Path> candidates = new ArrayList<>();
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        candidates.add(Path.of(dir, name));
      }
    }
    String cache = TestCluster.setting("SYNCGC_CACHE");
    Path cacheDir = cache != null ? Path.of(cache)
        : Path.of(System.getProperty("user.home"), ".cache", "syncgc");
    candidates.add(cacheDir.resolve("tools").resolve(name));
    return candidates.stream()
        .filter(Files::isExecutable)
        .findFirst()
        .map(Path::toString)
        .orElseThrow(() -> new IllegalStateException(name + " not found: set " + setting + ", put " + name
            + " on PATH, or run `e2e/cluster.sh build` (links it into " + cacheDir.resolve("tools")
            + "); looked at " + candidates));
  }
}
