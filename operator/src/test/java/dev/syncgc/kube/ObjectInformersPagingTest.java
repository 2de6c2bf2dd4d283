package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.kube.ScriptedApiServer.Answer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
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
  private ScriptedApiServer server;

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
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theInitialListIsReadInPages() throws Exception {
    server = new ScriptedApiServer(exchange -> {
      String query = exchange.getRequestURI().getQuery() == null ? "" : exchange.getRequestURI().getQuery();
      if (query.contains("watch=true")) {
        return new Answer(500, null, "{}"); // no watch here: the informer retries, which this test does not need
      }
      return new Answer(200, null, query.contains("continue=page-2") ? page(null, "c") : page("page-2", "a", "b"));
    });
    ConcurrentLinkedQueue<String> upserted = new ConcurrentLinkedQueue<>();
    // start() also waits for a watch, which this server never gives: the list is in before 3 s are up
    try (ObjectInformers informers = new ObjectInformers(server.client, Set.of(), Duration.ofSeconds(3),
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
      List<String> first = server.seen().stream().filter(r -> r.startsWith("GET ") && !r.contains("watch=true"))
          .map(r -> r.substring(r.indexOf('?') + 1)).limit(2).toList();
      assertTrue(first.get(0).contains("limit=" + ObjectInformers.LIST_PAGE), "first page asked with a limit: " + first);
      // resourceVersion=0 would have the API server answer from its watch cache and ignore the limit
      assertTrue(!first.get(0).contains("resourceVersion=0"), "a paged list is not served from the cache: " + first);
      assertTrue(first.get(1).contains("continue=page-2") && first.get(1).contains("limit=" + ObjectInformers.LIST_PAGE),
          "second page asked with the continue token: " + first);
    }
  }
}
