package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.kube.ScriptedApiServer.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/** The release's LIST asks for metadata only (Secrets' data never read), in pages. */
class KubeApiMetadataListTest {
  private static final TrackedKind SECRETS = new TrackedKind("", "v1", "Secret", "secrets", true);

  @Test
  void listAllMetadataAsksForPartialObjectMetadataPageByPage() {
    ConcurrentLinkedQueue<String> accepts = new ConcurrentLinkedQueue<>();
    try (ScriptedApiServer server = new ScriptedApiServer(exchange -> {
      accepts.add(String.valueOf(exchange.getRequestHeaders().getFirst("Accept")));
      boolean second = exchange.getRequestURI().getQuery().contains("continue=next");
      String item = "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\""
          + (second ? "b" : "a") + "\",\"namespace\":\"ns\",\"uid\":\"u\",\"finalizers\":[\"f\"]}}";
      return new Answer(200, null, "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadataList\","
          + "\"metadata\":{\"resourceVersion\":\"7\"" + (second ? "" : ",\"continue\":\"next\"") + "},\"items\":["
          + item + "]}");
    })) {
      KubeApi api = new KubeApi(server.client, new RateLimiter(0, 0), CallCounts.NONE);
      List<String> names = new ArrayList<>();
      List<List<String>> finalizers = new ArrayList<>();
      long at = api.listAllMetadata(SECRETS, null, o -> {
        names.add(o.getMetadata().getName());
        finalizers.add(o.getMetadata().getFinalizers());
      });

      assertEquals(7, at);
      assertEquals(List.of("a", "b"), names);
      assertEquals(List.of(List.of("f"), List.of("f")), finalizers);
      assertEquals(2, accepts.size(), server.seen().toString());
      for (String accept : accepts) {
        assertTrue(accept.startsWith("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"), accept);
      }
      assertTrue(server.seen().get(0).startsWith("GET /api/v1/secrets?limit=500"), server.seen().toString());
    }
  }
}
