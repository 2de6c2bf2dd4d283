package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.core.model.ObjectRef;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** KubeApi against a scripted HTTP server: what it sends, and what it does with 429. */
class KubeApiTest {
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private static final ObjectRef CM = new ObjectRef("v1", "ConfigMap", "ns", "cm", "uid-1");

  /** Requests counted, by "verb code". */
  private final Map<String, Integer> counted = new ConcurrentHashMap<>();
  private final CallCounts counts = new CallCounts() {
    @Override
    public void apiRequest(String verb, int code) {
      counted.merge(verb + " " + code, 1, Integer::sum);
    }

    @Override
    public void apiLatency(String verb, java.time.Duration took) {
      assertTrue(!took.isNegative(), took.toString());
      counted.merge(verb + " timed", 1, Integer::sum);
    }

    @Override
    public void callNotSent(String verb) {
      counted.merge(verb + " not sent", 1, Integer::sum);
    }
  };
  private ScriptedApiServer server;

  private KubeApi api(Function<HttpExchange, Answer> script) {
    server = new ScriptedApiServer(script);
    return new KubeApi(server.client, RateLimiter.unlimited(), counts);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private List<String> seen() {
    return server.seen();
  }

  private double requests(String verb, String code) {
    return counted.getOrDefault(verb + " " + code, 0);
  }

  @Test
  void aDeleteRefusedWith429IsSentAgainAndEveryAnswerIsCounted() throws IOException {
    int[] n = {0};
    KubeApi api = api(x -> ++n[0] <= 2 ? new Answer(429, "0", "Too many requests") : new Answer(200, null, "{}"));

    ApiResult r = new ObjectWrites(api).delete(CONFIGMAPS, CM, 7, null, "Background", ObjectWrites.UNCHECKED);

    assertTrue(r.ok(), r.message());
    assertEquals(3, seen().size(), "two refused, the third carried out: " + seen());
    assertTrue(seen().stream().allMatch(s -> s.equals("DELETE /api/v1/namespaces/ns/configmaps/cm")), seen().toString());
    assertEquals(2, requests("delete", "429"));
    assertEquals(1, requests("delete", "200"));
    assertEquals(3, requests("delete", "timed"), "each request sent has its latency observed: " + counted);
  }

  @Test
  void aServerThatKeepsThrottlingGets429BackAfterTenRetries() throws IOException {
    KubeApi api = api(x -> new Answer(429, "0", "Too many requests"));

    ApiResult r = api.patch(CONFIGMAPS, CM, KubeApi.MERGE_PATCH, "{}");

    assertEquals(429, r.code());
    assertEquals(1 + TooManyRequests.MAX_RETRIES, seen().size());
    assertEquals(1 + TooManyRequests.MAX_RETRIES, requests("patch", "429"));
  }

  @Test
  void otherErrorsAreNotRetried() throws IOException {
    KubeApi api = api(x -> new Answer(409, null, "{\"kind\":\"Status\",\"message\":\"Operation cannot be fulfilled on"
        + " configmaps \\\"cm\\\": the UID in the precondition does not match\",\"reason\":\"Conflict\",\"code\":409}"));

    ApiResult r = new ObjectWrites(api).delete(CONFIGMAPS, CM, 7, null, "Background", ObjectWrites.UNCHECKED);

    assertTrue(r.conflict());
    assertEquals(1, seen().size());
  }

  @Test
  void aListReadsEveryPageAndRidesOutA429InTheMiddle() throws IOException {
    int[] n = {0};
    KubeApi api = api(x -> {
      n[0]++;
      String query = x.getRequestURI().getRawQuery();
      if (n[0] == 1) {
        return new Answer(200, null, page("7", "a+b/c=", "one", "two"));
      }
      if (n[0] == 2) {
        return new Answer(429, "0", "Too many requests");
      }
      assertTrue(query.contains("continue=a%2Bb%2Fc%3D"), query);
      return new Answer(200, null, page("9", null, "three"));
    });
    List<String> names = new ArrayList<>();

    long listedAt = api.listMetadata(CONFIGMAPS, "ns", item -> names.add(item.ref().name()));

    assertEquals(List.of("one", "two", "three"), names);
    assertEquals(7, listedAt, "the version of the first page");
    assertTrue(seen().stream().allMatch(s -> s.startsWith("GET /api/v1/namespaces/ns/configmaps?limit=500")), seen().toString());
    assertEquals(1, requests("list", "429"));
    assertEquals(2, requests("list", "200"));
  }

  @Test
  void aForbiddenListThrowsWithItsCode() throws IOException {
    KubeApi api = api(x -> new Answer(403, null, "{\"kind\":\"Status\",\"message\":\"configmaps is forbidden\"}"));

    KubernetesClientException e = assertThrows(KubernetesClientException.class,
        () -> api.listMetadata(CONFIGMAPS, null, item -> {}));

    assertEquals(403, e.getCode());
    assertTrue(e.getMessage().contains("forbidden"), e.getMessage());
    assertEquals(List.of("GET /api/v1/configmaps?limit=500"), seen());
  }

  private static String page(String resourceVersion, String continueToken, String... names) {
    StringBuilder items = new StringBuilder();
    for (String name : names) {
      items.append(items.length() == 0 ? "" : ",").append("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",")
          .append("\"metadata\":{\"name\":\"").append(name).append("\",\"namespace\":\"ns\",\"uid\":\"u-")
          .append(name).append("\",\"resourceVersion\":\"5\"}}");
    }
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"" + resourceVersion
        + "\"" + (continueToken == null ? "" : ",\"continue\":\"" + continueToken + "\"") + "},\"items\":["
        + items + "]}";
  }
}
