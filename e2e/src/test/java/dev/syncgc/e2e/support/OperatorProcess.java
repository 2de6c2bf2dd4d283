package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar run as a separate JVM against the test cluster, as it runs in production (started
 * with faster JVM flags: {@link OperatorJvm}).
 * Output goes to {@code e2e/target/operator-logs/<name>.log}; restarts append to the same file and
 * keep the HTTP port.
 */
public final class OperatorProcess implements RunningOperator, AutoCloseable {
  public static final Duration READY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(30);
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    // A test JVM that dies must not leave operators running against the shared cluster.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
  }

  private final String name;
  private final List<String> args;
  private final Map<String, String> env;
  private final int port;
  private final Path logFile;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;

  private OperatorProcess(String name, List<String> args, Map<String, String> env) {
    this.name = name;
    this.args = List.copyOf(args);
    this.env = Map.copyOf(env);
    this.port = freePort();
    this.logFile = TestCluster.targetDir().resolve("operator-logs").resolve(name + ".log");
  }

  /** Starts the operator (does not wait for readiness; see {@link #awaitReady()}). */
  public static OperatorProcess start(String name, String... args) {
    return start(name, List.of(args), Map.of());
  }

  public static OperatorProcess start(String name, List<String> args, Map<String, String> env) {
    OperatorProcess operator = new OperatorProcess(name, args, env);
    operator.start();
    return operator;
  }

  /** Starts and awaits readiness. */
  public static OperatorProcess startReady(String name, String... args) {
    OperatorProcess operator = start(name, args);
    operator.awaitReady();
    return operator;
  }

  /** Starts the process again after {@link #kill()} or {@link #stop()}. */
  public synchronized void start() {
    if (isAlive()) {
      throw new IllegalStateException("operator " + name + " is already running");
    }
    List<String> command = OperatorJvm.command(operatorJar());
    command.addAll(List.of("--http-port", String.valueOf(port)));
    command.addAll(args);
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(logFile, "=== " + Instant.now() + " starting: " + String.join(" ", command)
          + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
      builder.environment().putAll(env);
      process = builder.start();
      OperatorJvm.started(command, process);
      LIVE.add(process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How a command of the operator jar (e.g. {@code release}) ended, and what this run printed. */
  public record Completed(int exitCode, String output, Path logFile) {}

  /**
   * Runs the operator jar with {@code args} (e.g. {@code release}) to completion, as a chart hook
   * would: {@code KUBECONFIG} is the test cluster's unless {@code env} overrides it. Output goes to
   * {@code e2e/target/operator-logs/<name>.log}; fails if it does not exit within {@code deadline}.
   */
  public static Completed run(String name, List<String> args, Map<String, String> env, Duration deadline) {
    List<String> command = OperatorJvm.command(operatorJar());
    command.addAll(args);
    Path log = TestCluster.targetDir().resolve("operator-logs").resolve(name + ".log");
    try {
      Files.createDirectories(log.getParent());
      long from = Files.exists(log) ? Files.size(log) : 0;
      Files.writeString(log, "=== " + Instant.now() + " running: " + String.join(" ", command) + "\n",
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
      builder.environment().putAll(env);
      Process p = builder.start();
      OperatorJvm.started(command, p);
      LIVE.add(p);
      try {
        if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly().waitFor();
          throw new AssertionError(String.join(" ", args) + " did not exit within " + deadline
              + "\n" + Logs.tail(log, 40));
        }
      } finally {
        LIVE.remove(p);
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

  /** Waits until {@code /readyz} answers 200; fails at once, with the log's tail, if the process exits. */
  public OperatorProcess awaitReady() {
    return awaitReady(READY_DEADLINE);
  }

  public OperatorProcess awaitReady(Duration deadline) {
    try {
      await("operator " + name + " ready").atMost(deadline).pollInterval(Duration.ofMillis(100))
          .until(() -> {
            if (!isAlive()) {
              throw new IllegalStateException("exited with code " + process.exitValue());
            }
            return status("/readyz") == 200;
          });
    } catch (RuntimeException e) { // timeout, or the process exited
      throw new AssertionError("operator " + name + " not ready: " + e.getMessage()
          + "\n--- tail of " + logFile + "\n" + Logs.tail(logFile, 40), e);
    }
    return this;
  }

  /** SIGKILL, then wait for the exit. Returns the exit code. */
  public int kill() {
    return terminate(true);
  }

  /** SIGTERM (graceful shutdown), then wait for the exit. Returns the exit code. */
  public int stop() {
    return terminate(false);
  }

  /** Graceful stop, start again and await readiness. */
  public OperatorProcess restart() {
    stop();
    start();
    return awaitReady();
  }

  @Override
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /** The identity it holds a leader-election Lease under: {@code <hostname>-<pid>}, as the operator builds it. */
  public String leaderElectionIdentity() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "syncgc";
    }
    return host + "-" + pid();
  }

  public int port() {
    return port;
  }

  public Path logFile() {
    return logFile;
  }

  /** The whole log file (every run of this operator). */
  @Override
  public String log() {
    try {
      return Files.readString(logFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the log contains {@code fragment} (log lines are written asynchronously). */
  public void awaitLog(String fragment) {
    await("'" + fragment + "' in " + logFile).atMost(READY_DEADLINE)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> log().contains(fragment));
  }

  /** The body of {@code GET /metrics}. */
  @Override
  public String metrics() {
    return get("/metrics").body();
  }

  /** {@code GET path} on the operator's HTTP port. */
  public HttpResponse<String> get(String path) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5)).GET().build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " on operator " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (isAlive() && OperatorJvm.writesArchive(process)) {
      try {
        stop(); // the archive is written at a JVM's exit, not at a SIGKILL
      } catch (AssertionError e) {
        // killed after EXIT_DEADLINE: closing it, not its graceful stop, is what the caller asked for
      }
    } else if (isAlive()) {
      kill();
    }
  }

  @Override
  public int status(String path) {
    try {
      return get(path).statusCode();
    } catch (UncheckedIOException e) {
      return -1; // not listening yet
    }
  }

  private synchronized int terminate(boolean force) {
    if (process == null) {
      throw new IllegalStateException("operator " + name + " was never started");
    }
    if (force) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    try {
      if (!process.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError("operator " + name + " did not exit within " + EXIT_DEADLINE
            + " of " + (force ? "SIGKILL" : "SIGTERM") + "\n" + Logs.tail(logFile, 40));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      LIVE.remove(process);
    }
    return process.exitValue();
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

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
