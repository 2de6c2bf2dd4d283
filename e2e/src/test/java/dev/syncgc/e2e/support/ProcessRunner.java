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
 * Runs a command-line tool ({@code kubectl}, {@code helm}, a script) as a separate process, with no
 * standard input. Its standard output and error are kept apart, in
 * {@code e2e/target/process-logs/<tool>-*.out} and {@code .err}, and returned.
 */
public final class ProcessRunner {
  private ProcessRunner() {}

  /** The outcome of one run. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr, Duration took) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** Standard output, then standard error. */
    public String output() {
      return stdout + stderr;
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
          + " ms\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  /**
   * {@code kubectl args...} against the test cluster ({@code KUBECONFIG} is
   * {@link TestCluster#kubeconfig()}); fails if it does not exit within {@code deadline}.
   */
  public static Result kubectl(Duration deadline, String... args) {
    List<String> command = new ArrayList<>();
    command.add(TestCluster.get().kubectl());
    command.addAll(List.of(args));
    return run(command, Map.of("KUBECONFIG", TestCluster.get().kubeconfig().toString()), deadline);
  }

  /**
   * {@code helm args...} against the test cluster, with {@code --kubeconfig} and its own cache,
   * config and data directories under {@code home}, so that it shares nothing with other users of
   * the machine.
   */
  public static Result helm(Path home, Duration deadline, String... args) {
    List<String> command = new ArrayList<>();
    command.add(TestCluster.get().helm());
    command.addAll(List.of(args));
    command.add("--kubeconfig");
    command.add(TestCluster.get().kubeconfig().toString());
    return run(command, Map.of(
        "KUBECONFIG", TestCluster.get().kubeconfig().toString(),
        "HELM_CACHE_HOME", home.resolve("cache").toString(),
        "HELM_CONFIG_HOME", home.resolve("config").toString(),
        "HELM_DATA_HOME", home.resolve("data").toString()), deadline);
  }

  /**
   * Runs {@code command} in this JVM's environment plus {@code env}; kills it and fails if it does
   * not exit within {@code deadline}.
   */
  public static Result run(List<String> command, Map<String, String> env, Duration deadline) {
    long started = System.nanoTime();
    try {
      Path logs = TestCluster.targetDir().resolve("process-logs");
      Files.createDirectories(logs);
      String tool = Path.of(command.get(0)).getFileName().toString();
      Path out = Files.createTempFile(logs, tool + "-", ".out");
      Path err = out.resolveSibling(out.getFileName().toString().replaceFirst("\\.out$", ".err"));
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError(String.join(" ", command) + " did not finish within " + deadline
            + "\n--- stdout\n" + Files.readString(out, StandardCharsets.UTF_8)
            + "\n--- stderr\n" + Files.readString(err, StandardCharsets.UTF_8));
      }
      return new Result(List.copyOf(command), process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
          Duration.ofNanos(System.nanoTime() - started));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
