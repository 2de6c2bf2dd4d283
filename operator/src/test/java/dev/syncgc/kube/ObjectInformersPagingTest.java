package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The informers' initial LIST comes in pages (limit, continue), so that a kind with 100,000 objects is
 * never one response the heap must hold at once. A scripted server gives two pages and fails watches.
 */
class ObjectInformersPagingTest {
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private final ConcurrentLinkedQueue<String> lists = new ConcurrentLinkedQueue<>();
  private HttpServer server;
  private KubernetesClient client;

  private static String item(String name) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"ns\",\"name\":\"" + name
        + "\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"5\"}}";
  }

  private static String page(String cont, String... names) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"9\""
        + (cont == null ? "" : ",\"continue\":\"" + cont + "\"") + "},\"items\":["
        + String.join(",", java.util.Arrays.stream(names).map(ObjectInformersPagingTest::item).toList()) + "]}";
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void theInitialListIsReadInPages() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String query = exchange.getRequestURI().getQuery() == null ? "" : exchange.getRequestURI().getQuery();
      String body;
      int code = 200;
      if (query.contains("watch=true")) {
        code = 500; // no watch here: the informer retries, which this test does not need
        body = "{}";
      } else {
        lists.add(query);
        body = query.contains("continue=page-2") ? page(null, "c") : page("page-2", "a", "b");
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(code, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffLimit(0)
        .build()).build();
    ConcurrentLinkedQueue<String> upserted = new ConcurrentLinkedQueue<>();
    try (ObjectInformers informers = new ObjectInformers(client, Set.of(), Duration.ofSeconds(3), // start() also waits for a watch, which this server never gives
        new ObjectInformers.ObjectEvents() {
          @Override
          public void upserted(TrackedKind kind, GenericKubernetesResource object) {
            upserted.add(object.getMetadata().getName());
          }

          @Override
          public void deleted(TrackedKind kind, GenericKubernetesResource object) {}
        })) {
      informers.track(CONFIGMAPS).get(30, TimeUnit.SECONDS);
      assertEquals(List.of("a", "b", "c"), List.copyOf(upserted), "every page's objects delivered");
      List<String> first = List.copyOf(lists).subList(0, 2);
      assertTrue(first.get(0).contains("limit=" + ObjectInformers.LIST_PAGE), "first page asked with a limit: " + first);
      // resourceVersion=0 would have the API server answer from its watch cache and ignore the limit
      assertTrue(!first.get(0).contains("resourceVersion=0"), "a paged list is not served from the cache: " + first);
      assertTrue(first.get(1).contains("continue=page-2") && first.get(1).contains("limit=" + ObjectInformers.LIST_PAGE),
          "second page asked with the continue token: " + first);
    }
  }
}
