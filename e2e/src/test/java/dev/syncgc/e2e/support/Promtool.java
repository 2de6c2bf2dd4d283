package dev.syncgc.e2e.support;

import dev.syncgc.e2e.support.ProcessRunner.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs Prometheus' {@code promtool} (built from the Prometheus Go module by
 * {@code e2e/cluster.sh build}): found in {@code PROMTOOL} (system property or environment), on
 * {@code PATH}, or in {@code $SYNCGC_CACHE/tools}.
 */
public final class Promtool {
  private static final Duration DEADLINE = Duration.ofSeconds(120);
  private final String binary;

  private Promtool(String binary) {
    this.binary = binary;
  }

  public static Promtool find() {
    return new Promtool(LocalTool.locate("promtool", "PROMTOOL"));
  }

  /** {@code promtool check rules} with every lint check, lint findings fatal. */
  public Result checkRules(Path rulesFile) {
    return run("check", "rules", "--lint=all", "--lint-fatal", rulesFile.toString());
  }

  /** {@code promtool test rules}: the unit tests of a test file (its rule files are relative to it). */
  public Result testRules(Path testFile) {
    return run("test", "rules", testFile.toString());
  }

  private Result run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary);
    command.addAll(List.of(args));
    return ProcessRunner.run(command, Map.of(), DEADLINE);
  }
}
