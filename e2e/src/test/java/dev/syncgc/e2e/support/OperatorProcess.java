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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator jar run as a separate JVM against the test cluster, as it runs in production (launched
 * as {@link OperatorLaunch} says), and its lifecycle: start, readiness, stop, kill, restart; its HTTP
 * port and log. Output goes to {@code e2e/target/operator-logs/<name>.log}; restarts append to the
 * same file and keep the HTTP port. A command run to completion is an {@link OperatorCommand}.
 */
public final class OperatorProcess implements RunningOperator, AutoCloseable {
  public static final Duration READY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(30);

  private final OperatorLaunch launch;
  private final String name;
  private final int port;
  private final Path logFile;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;

  private OperatorProcess(String name, List<String> args, Map<String, String> env) {
    this.launch = new OperatorLaunch(name, args, env);
    this.name = name;
    this.port = freePort();
    this.logFile = launch.logFile();
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
    process = launch.start("starting", List.of("--http-port", String.valueOf(port)), ProcessBuilder.Redirect.PIPE);
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
      OperatorLaunch.ended(process);
    }
    return process.exitValue();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
