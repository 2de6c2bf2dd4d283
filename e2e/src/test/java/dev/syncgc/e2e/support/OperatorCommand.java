package dev.syncgc.e2e.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A command of the operator jar (e.g. {@code release}) run to completion, as a chart hook would run it. */
public final class OperatorCommand {

  /** How the command ended, and what this run printed. */
  public record Completed(int exitCode, String output, Path logFile) {}

  private OperatorCommand() {}

  /**
   * Runs the operator jar with {@code args} to completion: {@code KUBECONFIG} is the test cluster's
   * unless {@code env} overrides it. Output goes to {@code e2e/target/operator-logs/<name>.log}; fails
   * if it does not exit within {@code deadline}.
   */
  public static Completed run(String name, List<String> args, Map<String, String> env, Duration deadline) {
    OperatorLaunch launch = new OperatorLaunch(name, args, env);
    Path log = launch.logFile();
    try {
      long from = Files.exists(log) ? Files.size(log) : 0;
      Process p = launch.start("running", List.of(), ProcessBuilder.Redirect.from(new File("/dev/null")));
      try {
        if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly().waitFor();
          throw new AssertionError(String.join(" ", args) + " did not exit within " + deadline
              + "\n" + Logs.tail(log, 40));
        }
      } finally {
        OperatorLaunch.ended(p);
      }
      byte[] all = Files.readAllBytes(log);
      String output = new String(all, (int) from, all.length - (int) from, StandardCharsets.UTF_8);
      return new Completed(p.exitValue(), output, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
