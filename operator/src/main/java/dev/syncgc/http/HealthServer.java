package dev.syncgc.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves /healthz, /readyz and /metrics for probes and Prometheus. /healthz answers 503 with the
 * reason when {@link Liveness} finds the operator wedged.
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  public HealthServer(
      String address, int port, Supplier<Liveness.Verdict> live, BooleanSupplier ready, Supplier<String> metrics)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(address, port), 0);
    server.createContext("/healthz", ex -> {
      Liveness.Verdict verdict = live.get();
      respond(ex, verdict.alive() ? 200 : 503, "text/plain", verdict.alive() ? "ok\n" : "not ok: " + verdict.reason() + "\n");
    });
    server.createContext("/readyz", ex -> probe(ex, ready.getAsBoolean()));
    server.createContext(
        "/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()));
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "http");
      t.setDaemon(true);
      return t;
    }));
  }

  /** Serves {@code path} with a plain-text body made at each request. */
  public void serve(String path, Supplier<String> body) {
    server.createContext(path, ex -> respond(ex, 200, "text/plain; charset=utf-8", body.get()));
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange ex, boolean ok) throws IOException {
    respond(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ok\n");
  }

  private static void respond(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
