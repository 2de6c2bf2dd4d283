package dev.syncgc.kube;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An HTTP server on loopback that answers every request as a script says, records what it was asked
 * ("METHOD /path?query", and each request as it came: framing headers and body), and a Fabric8
 * client pointed at it (no HTTP-level retries).
 */
public final class ScriptedApiServer implements AutoCloseable {
  /**
   * Status, Retry-After (or null), JSON body; {@code stalls}: the body is sent and the connection then
   * kept open with nothing more on it (a load balancer or NAT that dropped it silently), until closed.
   */
  public record Answer(int code, String retryAfter, String body, boolean stalls) {
    /** The connection is closed without an answer (a reset). */
    public static final int NO_ANSWER = -1;

    public Answer(int code, String retryAfter, String body) {
      this(code, retryAfter, body, false);
    }
  }

  /**
   * One request as it arrived: its {@code Content-Length} and {@code Transfer-Encoding} headers (null
   * when absent) and its body, read whole before the script answers.
   */
  public record Received(String method, String path, String contentLength, String transferEncoding, String body) {}

  private final HttpServer server;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
  public final KubernetesClient client;

  public ScriptedApiServer(Function<HttpExchange, Answer> script) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", exchange -> {
      seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          exchange.getRequestHeaders().getFirst("Content-Length"),
          exchange.getRequestHeaders().getFirst("Transfer-Encoding"),
          new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
      Answer a = script.apply(exchange);
      if (a.code() == Answer.NO_ANSWER) {
        exchange.close(); // no status line: the client sees the connection end
        return;
      }
      if (a.retryAfter() != null) {
        exchange.getResponseHeaders().set("Retry-After", a.retryAfter());
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
      if (a.stalls()) {
        exchange.sendResponseHeaders(a.code(), 0); // chunked: no end the client could see
        exchange.getResponseBody().write(body);
        exchange.getResponseBody().flush();
        try {
          closed.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        exchange.close();
        return;
      }
      exchange.sendResponseHeaders(a.code(), body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "scripted-api-server");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .withRequestRetryBackoffLimit(0).build()).build();
  }

  /** The requests so far, in order. */
  public List<String> seen() {
    return List.copyOf(seen);
  }

  /** The requests so far as they arrived, in order. */
  public List<Received> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    closed.countDown();
    client.close();
    server.stop(0);
  }
}
