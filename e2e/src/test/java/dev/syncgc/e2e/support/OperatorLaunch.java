package dev.syncgc.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the tests launch the operator jar (with faster JVM flags: {@link OperatorJvm}): its arguments,
 * {@code env} over the test cluster's {@code KUBECONFIG}, and its output appended to
 * {@code e2e/target/operator-logs/<name>.log} after a line saying what was started. What is launched
 * is killed if the test JVM dies; {@link #ended} forgets a process that exited.
 */
record OperatorLaunch(String name, List<String> args, Map<String, String> env) {
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    // A test JVM that dies must not leave operators running against the shared cluster.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
  }

  OperatorLaunch {
    args = List.copyOf(args);
    env = Map.copyOf(env);
  }

  Path logFile() {
    return TestCluster.targetDir().resolve("operator-logs").resolve(name + ".log");
  }

  /**
   * Starts {@code java <flags> -jar <operator jar> <first> <args>}, its standard input {@code input};
   * the log's line before its output says {@code <verb>: <command>}.
   */
  Process start(String verb, List<String> first, ProcessBuilder.Redirect input) {
    List<String> command = OperatorJvm.command(operatorJar());
    command.addAll(first);
    command.addAll(args);
    Path log = logFile();
    try {
      Files.createDirectories(log.getParent());
      Files.writeString(log, "=== " + Instant.now() + " " + verb + ": " + String.join(" ", command) + "\n",
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(input);
      builder.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
      builder.environment().putAll(env);
      Process process = builder.start();
      OperatorJvm.started(command, process);
      LIVE.add(process);
      return process;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code process} exited (or was killed): the test JVM's exit need not kill it. */
  static void ended(Process process) {
    LIVE.remove(process);
  }

  private static Path operatorJar() {
    String jar = System.getProperty("syncgc.operatorJar");
    Path path = jar != null ? Path.of(jar)
        : TestCluster.repoRoot().resolve("operator/target/syncgc-operator.jar");
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException("operator jar not found: " + path
          + " (build it with: mvn -pl operator -am package -DskipTests)");
    }
    return path;
  }
}
