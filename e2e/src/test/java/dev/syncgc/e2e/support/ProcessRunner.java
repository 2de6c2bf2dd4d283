package dev.syncgc.e2e.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command-line tool of the test cluster ({@code kubectl}, {@code helm}) as a separate process
 * with {@code KUBECONFIG} pointing at {@link TestCluster#kubeconfig()}. Output (stdout and stderr)
 * is kept in {@code e2e/target/process-logs/} and returned.
 */
public final class ProcessRunner {
  private ProcessRunner() {}

  /** The outcome of one run. */
  public record Result(List<String> command, int exitCode, String output, Duration took) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** Fails with the command and its output unless it exited with 0. */
    public Result assertOk() {
      if (!ok()) {
        throw new AssertionError(describe());
      }
      return this;
    }

    public String describe() {
      return String.join(" ", command) + " exited with " + exitCode + " after " + took.toMillis()
          + " ms:\n" + output;
    }
  }

  /** {@code kubectl args...}; fails if it does not exit within {@code deadline}. */
  public static Result kubectl(Duration deadline, String... args) {
    List<String> command = new ArrayList<>();
    command.add(TestCluster.get().kubectl());
    command.addAll(List.of(args));
    return run(command, Map.of(), deadline);
  }

  /**
   * {@code helm args...} with {@code --kubeconfig} and its own cache, config and data directories
   * under {@code home}, so that it shares nothing with other users of the machine.
   */
  public static Result helm(Path home, Duration deadline, String... args) {
    List<String> command = new ArrayList<>();
    command.add(TestCluster.get().helm());
    command.addAll(List.of(args));
    command.add("--kubeconfig");
    command.add(TestCluster.get().kubeconfig().toString());
    return run(command, Map.of(
        "HELM_CACHE_HOME", home.resolve("cache").toString(),
        "HELM_CONFIG_HOME", home.resolve("config").toString(),
        "HELM_DATA_HOME", home.resolve("data").toString()), deadline);
  }

  /** Runs {@code command} with KUBECONFIG set (plus {@code env}); kills it after {@code deadline}. */
  public static Result run(List<String> command, Map<String, String> env, Duration deadline) {
    long started = System.nanoTime();
    try {
      Path logs = TestCluster.targetDir().resolve("process-logs");
      Files.createDirectories(logs);
      String tool = Path.of(command.get(0)).getFileName().toString();
      Path out = Files.createTempFile(logs, tool + "-", ".log");
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(out.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      builder.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError(String.join(" ", command) + " did not finish within " + deadline
            + ":\n" + Files.readString(out, StandardCharsets.UTF_8));
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      return new Result(List.copyOf(command), process.exitValue(), output,
          Duration.ofNanos(System.nanoTime() - started));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
