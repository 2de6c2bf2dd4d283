package dev.syncgc.kube;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reflectors against a scripted API server: paged LIST, watch resumed from the last version seen
 * (an event's, a bookmark's), a new LIST on 410, refused then granted. A scripted watch sends its
 * events and ends, as a watch whose timeout came does.
 */
class ReflectorsTest {
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private ScriptedApiServer server;
  private Reflectors reflectors;
  private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();

  static String item(String name, long rv) {
    return "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"namespace\":\"ns\","
        + "\"name\":\"" + name + "\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + rv + "\"}}";
  }

  static String page(long rv, String cont, String... items) {
    return "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\""
        + rv + "\"" + (cont == null ? "" : ",\"continue\":\"" + cont + "\"") + "},\"items\":[" + String.join(",", items)
        + "]}";
  }

  static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":" + object + "}\n";
  }

  static String bookmark(long rv) {
    return event("BOOKMARK", "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
        + "\"metadata\":{\"resourceVersion\":\"" + rv + "\"}}");
  }

  static final String GONE = event("ERROR", "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
      + "\"status\":\"Failure\",\"message\":\"too old resource version: 10 (30)\",\"reason\":\"Expired\",\"code\":410}");

  private void start(Function<String, Answer> script) {
    server = new ScriptedApiServer(x -> script.apply(x.getRequestURI().getRawQuery() == null ? ""
        : x.getRequestURI().getRawQuery()));
    reflectors = new Reflectors(new KubeApi(server.client, new RateLimiter(0, 0),
        new SyncgcMetrics(new SimpleMeterRegistry())), Set.of(), Duration.ofSeconds(10), new Reflectors.ObjectEvents() {
          @Override
          public void upserted(TrackedKind kind, ObjectMetadata object) {
            seen.add("upserted " + object.ref().name() + "@" + object.resourceVersion());
          }

          @Override
          public void deleted(TrackedKind kind, ObjectMetadata object) {
            seen.add("deleted " + object.ref().name());
          }

          @Override
          public void relisted(TrackedKind kind, String namespace, long at, Set<String> held) {
            seen.add("relisted@" + at + " " + held.stream().sorted().toList());
          }
        });
  }

  @AfterEach
  void stop() {
    if (reflectors != null) {
      reflectors.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private List<String> watchVersions() {
    return server.seen().stream().filter(r -> r.contains("watch=true"))
        .map(r -> r.replaceAll(".*resourceVersion=(\\d+).*", "$1")).toList();
  }

  @Test
  void theListIsReadInPagesThenWatchedFromItsVersion() throws Exception {
    start(q -> q.contains("watch=true") ? new Answer(500, null, "{}")
        : new Answer(200, null, q.contains("continue=page-2") ? page(9, null, item("c", 5))
            : page(9, "page-2", item("a", 5), item("b", 5))));
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    assertEquals(List.of("upserted a@5", "upserted b@5", "upserted c@5", "relisted@9 [uid-a, uid-b, uid-c]"),
        List.copyOf(seen));
    List<String> lists = server.seen().stream().filter(r -> !r.contains("watch=true")).limit(2).toList();
    assertTrue(lists.get(0).startsWith("GET /api/v1/configmaps?limit=500"), lists.toString());
    assertTrue(lists.get(1).contains("continue=page-2"), lists.toString());
    await().atMost(Duration.ofSeconds(10)).until(() -> !watchVersions().isEmpty());
    assertEquals("9", watchVersions().get(0), "watched from the list's version");
  }

  @Test
  void aWatchThatEndsIsResumedFromTheLastEventOrBookmarkNotRelisted() {
    AtomicInteger watches = new AtomicInteger();
    start(q -> {
      if (!q.contains("watch=true")) {
        return new Answer(200, null, page(10, null, item("a", 5)));
      }
      return switch (watches.incrementAndGet()) {
        case 1 -> new Answer(200, null, event("MODIFIED", item("a", 30)));
        case 2 -> new Answer(200, null, event("DELETED", item("a", 31)) + bookmark(40));
        default -> new Answer(200, null, "");
      };
    });
    reflectors.track(CONFIGMAPS);

    await().atMost(Duration.ofSeconds(10)).until(() -> watchVersions().size() >= 3);
    assertEquals(List.of("10", "30", "40"), watchVersions().subList(0, 3),
        "each watch resumes from the last version seen: the list's, an event's, a bookmark's");
    assertEquals(1, server.seen().stream().filter(r -> !r.contains("watch=true")).count(), "listed once");
    assertEquals(List.of("upserted a@5", "relisted@10 [uid-a]", "upserted a@30", "deleted a"), List.copyOf(seen));
  }

  @Test
  void aWatchWhoseVersionIsGoneListsAgain() {
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger watches = new AtomicInteger();
    start(q -> {
      if (!q.contains("watch=true")) {
        return new Answer(200, null, lists.incrementAndGet() == 1 ? page(10, null, item("a", 5), item("b", 6))
            : page(30, null, item("a", 5)));
      }
      return switch (watches.incrementAndGet()) {
        case 1 -> new Answer(200, null, GONE); // an ERROR event in a 200 stream
        case 2 -> new Answer(410, null, "{\"kind\":\"Status\",\"code\":410}"); // or a 410 answer
        default -> new Answer(200, null, "");
      };
    });
    reflectors.track(CONFIGMAPS);

    await().atMost(Duration.ofSeconds(10)).until(() -> lists.get() >= 3);
    assertEquals(List.of("10", "30"), watchVersions().subList(0, 2), "the watch after the new list starts from it");
    assertTrue(List.copyOf(seen).subList(0, 5).equals(List.of("upserted a@5", "upserted b@6",
        "relisted@10 [uid-a, uid-b]", "upserted a@5", "relisted@30 [uid-a]")), seen.toString());
  }

  @Test
  void aRefusedKindIsReportedAndWorksOnceGranted() throws Exception {
    AtomicInteger lists = new AtomicInteger();
    start(q -> {
      if (q.contains("watch=true")) {
        return new Answer(200, null, "");
      }
      return lists.incrementAndGet() <= 2
          ? new Answer(403, null, "{\"kind\":\"Status\",\"message\":\"configmaps is forbidden\",\"code\":403}")
          : new Answer(200, null, page(10, null, item("a", 5)));
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS); // start-up does not wait for a refused kind
    assertEquals(List.of("/ConfigMap"), reflectors.refusedKinds());
    assertTrue(reflectors.listableKinds().isEmpty());

    await("retried until granted").atMost(Duration.ofSeconds(10)).until(() -> reflectors.refusedKinds().isEmpty());
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains("upserted a@5"));
    assertEquals(List.of(CONFIGMAPS), reflectors.listableKinds());
  }
}
