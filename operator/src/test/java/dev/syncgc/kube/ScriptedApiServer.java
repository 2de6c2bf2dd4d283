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
import java.util.function.Function;

/**
 * An HTTP server on loopback that answers every request as a script says, records what it was asked
 * ("METHOD /path?query"), and a Fabric8 client pointed at it (no HTTP-level retries).
 */
final class ScriptedApiServer implements AutoCloseable {
  /** Status, Retry-After (or null), JSON body. */
  record Answer(int code, String retryAfter, String body) {}

  private final HttpServer server;
  private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
  final KubernetesClient client;

  ScriptedApiServer(Function<HttpExchange, Answer> script) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", exchange -> {
      seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      Answer a = script.apply(exchange);
      if (a.retryAfter() != null) {
        exchange.getResponseHeaders().set("Retry-After", a.retryAfter());
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(a.code(), body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .withRequestRetryBackoffLimit(0).build()).build();
  }

  /** The requests so far, in order. */
  List<String> seen() {
    return List.copyOf(seen);
  }

  @Override
  public void close() {
    client.close();
    server.stop(0);
  }
}
