package dev.syncgc.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator jar run as a child JVM with its default settings (KUBECONFIG given, a free
 * {@code --http-port}); its /metrics are scraped, and {@code jcmd GC.run} runs a full GC before the heap is read.
 */
final class SyncgcProcess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SyncgcProcess.class);
  private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    // A benchmark that dies must not leave an operator running against the cluster.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
  }

  private final Path jar;
  private final Path kubeconfig;
  private final Path logFile;
  private final Path gcLog;
  private final String heap;
  private final List<String> jvmOptions;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;
  private int port;
  private long startNanos;
  private long logOffset;

  /** @param heap the JVM's maximum heap (-Xmx), e.g. 256m; its collections are logged beside logFile */
  SyncgcProcess(Path jar, Path kubeconfig, Path logFile, String heap, List<String> jvmOptions) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("operator jar " + jar + " not found: mvn -pl operator -am package -DskipTests");
    }
    this.jar = jar;
    this.kubeconfig = kubeconfig;
    this.logFile = logFile;
    this.gcLog = logFile.resolveSibling(logFile.getFileName().toString().replaceAll("\\.log$", "") + "-gc.log");
    this.heap = heap;
    this.jvmOptions = List.copyOf(jvmOptions);
  }

  boolean running() {
    return process != null && process.isAlive();
  }

  void start() throws IOException {
    start(List.of());
  }

  void start(List<String> extraArgs) throws IOException {
    if (running()) {
      return;
    }
    port = freePort();
    List<String> command = new ArrayList<>(List.of(javaBin("java"), "-Xmx" + heap,
        "-Xlog:gc:file=" + gcLog.toAbsolutePath() + ":uptime"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar.toString(), "--http-port", Integer.toString(port), "--http-address",
        "127.0.0.1"));
    command.addAll(extraArgs);
    Files.createDirectories(logFile.getParent());
    Files.writeString(logFile, "=== " + Instant.now() + " " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    logOffset = Files.size(logFile);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    startNanos = System.nanoTime();
    process = pb.start();
    LIVE.add(process);
    log.info("started syncgc (pid {}, port {}, log {})", process.pid(), port, logFile);
  }

  /** Waits for /readyz 200 and returns the time since the process was started. */
  Duration awaitReady(Duration max) throws InterruptedException {
    long deadline = startNanos + max.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("syncgc exited with code " + process.exitValue() + "; see " + logFile);
      }
      if (status("/readyz") == 200) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("syncgc not ready after " + max.toSeconds() + " s; see " + logFile);
      }
      Thread.sleep(20);
    }
  }

  String metrics() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("/metrics answered " + r.statusCode());
      }
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException("cannot scrape syncgc's /metrics: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  double metric(String name, String labelFilter) {
    return Prom.sum(metrics(), name, labelFilter);
  }

  double apiRequests() {
    return metric("syncgc_api_requests_total", null);
  }

  Map<String, Double> apiRequestsByVerb() {
    return Prom.byLabel(metrics(), "syncgc_api_requests_total", "verb");
  }

  /** process_cpu_seconds_total: CPU time the operator's JVM has used since it started. */
  double cpuSeconds() {
    return metric("process_cpu_seconds_total", null);
  }

  /** Where the GC log stands now; {@link #gcSince} reads the collections after it. */
  long gcMark() {
    return GcLog.size(gcLog);
  }

  GcLog.Peak gcSince(long mark) throws IOException {
    return GcLog.since(gcLog, mark);
  }

  double graphObjects() {
    return metric("syncgc_graph_objects", null);
  }

  /** Heap used after a full GC (jcmd GC.run; without jcmd, as it is). */
  double heapAfterGc() throws InterruptedException {
    try {
      Process jcmd = new ProcessBuilder(javaBin("jcmd"), Long.toString(process.pid()), "GC.run")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
        log.warn("jcmd {} GC.run failed; heap read without a full GC", process.pid());
      }
    } catch (IOException e) {
      log.warn("jcmd not available ({}); heap read without a full GC", e.getMessage());
    }
    Thread.sleep(200);
    return metric("jvm_memory_used_bytes", "area=\"heap\"");
  }

  /**
   * From the log of the current start: seconds between "starting" and "graph built objects=N", and N.
   * Returns null when the line is not there.
   */
  double[] graphBuilt() throws IOException {
    String text = Files.readString(logFile, StandardCharsets.UTF_8);
    text = text.substring((int) Math.min(logOffset, text.length()));
    OffsetDateTime started = null;
    for (String line : text.split("\n")) {
      if (started == null && line.contains(" starting config=")) {
        started = time(line);
      } else if (line.contains(" graph built objects=") && started != null) {
        OffsetDateTime built = time(line);
        String n = line.substring(line.indexOf("graph built objects=") + "graph built objects=".length()).strip();
        double objects = Double.parseDouble(n.split("\\s+")[0]);
        return new double[] {Duration.between(started, built).toMillis() / 1000.0, objects};
      }
    }
    return null;
  }

  private static OffsetDateTime time(String line) {
    return OffsetDateTime.parse(line.substring(0, line.indexOf(' ')));
  }

  void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      log.info("stopped syncgc (pid {})", process.pid());
    }
    LIVE.remove(process);
    process = null;
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (process != null) {
        process.destroyForcibly();
      }
    }
  }

  private int status(String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  static String javaBin(String tool) {
    Path p = Path.of(System.getProperty("java.home"), "bin", tool);
    return Files.isExecutable(p) ? p.toString() : tool;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
