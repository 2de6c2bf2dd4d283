package dev.syncgc.kube.reflector;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.TrackedKind;
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
 * The reflectors against a scripted API server: a watch list (its initial events as the list, the same
 * stream then the watch), paged LIST when the server rejects a watch list or breaks it off, watch
 * resumed from the last version seen (an event's, a bookmark's), a new LIST on 410, refused then
 * granted. A scripted watch sends its events and ends, as a watch whose timeout came does.
 */
class ReflectorsTest {
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private ScriptedApiServer server;
  private Reflectors reflectors;
  private final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
  /** Watches restarted, as "kind reason". */
  private final ConcurrentLinkedQueue<String> restarts = new ConcurrentLinkedQueue<>();
  private Duration silenceLimit = Reflectors.SILENCE_LIMIT;
  /** {@link Reflectors#deliveredUpTo} as each event reached the graph. */
  private final ConcurrentLinkedQueue<Long> positions = new ConcurrentLinkedQueue<>();

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

  /** The bookmark that ends a watch list's initial events (KEP-3157). */
  static String endBookmark(long rv) {
    return event("BOOKMARK", "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
        + "\"metadata\":{\"resourceVersion\":\"" + rv + "\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}");
  }

  /** How an API server without WatchList answers it (422 on v1.27-1.31 with the feature off). */
  static final Answer NO_WATCH_LIST = new Answer(400, null, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
      + "\"status\":\"Failure\",\"message\":\"sendInitialEvents is forbidden\",\"reason\":\"BadRequest\",\"code\":400}");

  static final String GONE = event("ERROR", "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
      + "\"status\":\"Failure\",\"message\":\"too old resource version: 10 (30)\",\"reason\":\"Expired\",\"code\":410}");

  /** A server that rejects watch lists, so the reflectors list in pages; {@code script} answers the rest. */
  private void startPaged(Function<String, Answer> script) {
    start(q -> q.contains("sendInitialEvents") ? NO_WATCH_LIST : script.apply(q));
  }

  private void start(Function<String, Answer> script) {
    start(RateLimiter.unlimited(), script);
  }

  private void start(RateLimiter limiter, Function<String, Answer> script) {
    server = new ScriptedApiServer(x -> script.apply(x.getRequestURI().getRawQuery() == null ? ""
        : x.getRequestURI().getRawQuery()));
    reflectors = new Reflectors(new KubeApi(server.client, limiter,
        CallCounts.NONE), Set.of(), Duration.ofSeconds(10), new Reflectors.ObjectEvents() {
          @Override
          public void upserted(TrackedKind kind, ObjectMetadata object) {
            seen.add("upserted " + object.ref().name() + "@" + object.resourceVersion());
            positions.add(reflectors.deliveredUpTo(CONFIGMAPS, "ns"));
          }

          @Override
          public void deleted(TrackedKind kind, ObjectMetadata object) {
            seen.add("deleted " + object.ref().name());
            positions.add(reflectors.deliveredUpTo(CONFIGMAPS, "ns"));
          }

          @Override
          public void listed(TrackedKind kind, String namespace, long at, Set<String> held) {
            seen.add("relisted@" + at + " " + held.stream().sorted().toList());
          }

          @Override
          public void watchRestarted(TrackedKind kind, String reason) {
            restarts.add(kind.kind() + " " + reason);
          }
        }, silenceLimit);
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
    return server.seen().stream().filter(r -> r.contains("watch=true") && !r.contains("sendInitialEvents"))
        .map(r -> r.replaceAll(".*resourceVersion=(\\d+).*", "$1")).toList();
  }

  private List<String> lists() {
    return server.seen().stream().filter(r -> !r.contains("watch=true")).toList();
  }

  private List<String> watchLists() {
    return server.seen().stream().filter(r -> r.contains("sendInitialEvents")).toList();
  }

  @Test
  void aWatchListsInitialEventsAreTheListAndTheSameStreamGoesOnAsTheWatch() throws Exception {
    start(q -> {
      if (q.contains("sendInitialEvents=true")) {
        return new Answer(200, null, event("ADDED", item("a", 5)) + event("ADDED", item("b", 6)) + endBookmark(9)
            + event("MODIFIED", item("a", 12)) + event("DELETED", item("b", 13)));
      }
      return new Answer(q.contains("watch=true") ? 200 : 500, null, q.contains("watch=true") ? "" : "{}");
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> !watchVersions().isEmpty());
    assertEquals(List.of("upserted a@5", "upserted b@6", "relisted@9 [uid-a, uid-b]", "upserted a@12", "deleted b"),
        List.copyOf(seen).subList(0, 5), "the initial events, listed at the end bookmark's version, then the watch");
    assertTrue(watchLists().get(0).matches(".*\\?watch=true&sendInitialEvents=true"
        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=\\d+"), watchLists().toString());
    assertEquals(List.of(), lists(), "no LIST");
    assertEquals("13", watchVersions().get(0), "the stream's end is resumed from its last event");
  }

  @Test
  void theDeliveredPositionMovesOnlyWithEventsInTheServersOrderNeverDuringTheInitialEvents() throws Exception {
    start(q -> {
      if (q.contains("sendInitialEvents=true")) { // initial events come in no order of versions
        return new Answer(200, null, event("ADDED", item("a", 7)) + event("ADDED", item("b", 5)) + endBookmark(9)
            + event("MODIFIED", item("a", 12)) + event("DELETED", item("b", 13)) + bookmark(20));
      }
      return new Answer(q.contains("watch=true") ? 200 : 500, null, q.contains("watch=true") ? "" : "{}");
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> reflectors.deliveredUpTo(CONFIGMAPS, "ns") == 20);
    assertEquals(List.of(0L, 0L, 9L, 12L), List.copyOf(positions).subList(0, 4),
        "nothing during the initial events (a@7 does not say b@5 was delivered), the list's version at its end,"
            + " then each event's");
    assertEquals(20, reflectors.deliveredUpTo(CONFIGMAPS, "other"), "one watch of all namespaces");
    reflectors.untrack(CONFIGMAPS);
    assertEquals(0, reflectors.deliveredUpTo(CONFIGMAPS, "ns"), "an untracked kind says nothing");
  }

  @Test
  void aServerThatRejectsAWatchListIsListedInPagesFromThenOn() throws Exception {
    AtomicInteger watches = new AtomicInteger();
    startPaged(q -> {
      if (!q.contains("watch=true")) {
        return new Answer(200, null, page(9, null, item("a", 5)));
      }
      return new Answer(200, null, watches.incrementAndGet() == 1 ? GONE : "");
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> lists().size() >= 2 && watchVersions().size() >= 2);
    assertEquals(List.of("upserted a@5", "relisted@9 [uid-a]", "upserted a@5", "relisted@9 [uid-a]"),
        List.copyOf(seen).subList(0, 4));
    assertEquals(1, watchLists().size(), "the rejection is remembered: the relist after a 410 is a paged LIST");
  }

  @Test
  void aWatchListThatEndsBeforeItsEndBookmarkIsNoListAndTheKindIsListedInPages() throws Exception {
    start(q -> {
      if (q.contains("sendInitialEvents=true")) {
        return new Answer(200, null, event("ADDED", item("a", 5))); // broken off: a partial list
      }
      return new Answer(200, null, q.contains("watch=true") ? "" : page(9, null, item("b", 6)));
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    assertEquals(List.of("upserted a@5", "upserted b@6", "relisted@9 [uid-b]"), List.copyOf(seen).subList(0, 3),
        "no relisted for the partial list: start-up waited for the paged LIST");
    assertEquals(1, lists().size());
  }

  @Test
  void aWatchListWhoseVersionIsGoneDuringItsInitialEventsStartsOver() throws Exception {
    AtomicInteger watchLists = new AtomicInteger();
    start(q -> {
      if (q.contains("sendInitialEvents=true")) {
        return new Answer(200, null, watchLists.incrementAndGet() == 1 ? event("ADDED", item("a", 5)) + GONE
            : event("ADDED", item("b", 6)) + endBookmark(20));
      }
      return new Answer(200, null, q.contains("watch=true") ? "" : page(9, null, item("c", 7)));
    });
    reflectors.track(CONFIGMAPS).get(10, TimeUnit.SECONDS);

    assertEquals(List.of("upserted a@5", "upserted b@6", "relisted@20 [uid-b]"), List.copyOf(seen).subList(0, 3));
    assertEquals(2, watchLists().size(), "a new watch list, no paged LIST");
    assertEquals(List.of(), lists());
  }

  @Test
  void aWatchListWaitsOnTheClientSideRateLimitAsTheListItReplaces() {
    RateLimiter limiter = new RateLimiter(0.001, 1);
    limiter.acquire(); // the next token comes in 1000 s
    start(limiter, q -> new Answer(200, null, ""));
    reflectors.track(CONFIGMAPS);

    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> server.seen().isEmpty());
  }

  @Test
  void theListIsReadInPagesThenWatchedFromItsVersion() throws Exception {
    startPaged(q -> q.contains("watch=true") ? new Answer(500, null, "{}")
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
    startPaged(q -> {
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

  /**
   * A watch whose connection goes silent without closing (a load balancer or NAT
   * dropped it) is noticed after the silence limit and started again from the last version seen,
   * and counted; it used to wait for ever (the request timeout covers only the headers).
   */
  @Test
  void aWatchSilentPastTheLimitIsStartedAgainFromTheLastVersionSeen() {
    silenceLimit = Duration.ofMillis(800);
    AtomicInteger watches = new AtomicInteger();
    startPaged(q -> {
      if (!q.contains("watch=true")) {
        return new Answer(200, null, page(10, null, item("a", 5)));
      }
      return switch (watches.incrementAndGet()) {
        case 1 -> new Answer(200, null, event("MODIFIED", item("a", 30)) + bookmark(35), true);
        default -> new Answer(200, null, "");
      };
    });
    reflectors.track(CONFIGMAPS);

    await().atMost(Duration.ofSeconds(10)).until(() -> watchVersions().size() >= 2);
    assertEquals(List.of("10", "35"), watchVersions().subList(0, 2), "the silent watch resumes from its bookmark");
    assertEquals(1, lists().size(), "not listed again");
    assertTrue(reflectors.silentWatchesRestarted() >= 1);
    assertTrue(restarts.contains("ConfigMap silent"), restarts.toString());
  }

  /**
   * A paged LIST whose continue token expired (410) halfway is started again from its
   * first page, and only a whole list replaces what the graph holds of the kind.
   */
  @Test
  void aPagedListWhoseContinueTokenExpiresStartsAgainFromItsFirstPage() {
    AtomicInteger pages = new AtomicInteger();
    startPaged(q -> {
      if (q.contains("watch=true")) {
        return new Answer(200, null, "");
      }
      if (!q.contains("continue=")) {
        pages.incrementAndGet();
        return new Answer(200, null, page(10 * pages.get(), "next", item("a", 5)));
      }
      return pages.get() == 1
          ? new Answer(410, null, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
              + "\"message\":\"The provided continue parameter is too old\",\"reason\":\"Expired\",\"code\":410}")
          : new Answer(200, null, page(20, null, item("b", 6)));
    });
    reflectors.track(CONFIGMAPS);

    await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream().anyMatch(e -> e.startsWith("relisted")));
    assertEquals(List.of("relisted@20 [uid-a, uid-b]"), seen.stream().filter(e -> e.startsWith("relisted")).toList(),
        "one relist, of the whole second attempt");
    assertEquals(2, pages.get(), "started again from the first page");
  }

  @Test
  void aWatchWhoseVersionIsGoneListsAgain() {
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger watches = new AtomicInteger();
    startPaged(q -> {
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
    assertEquals(List.of("ConfigMap expired", "ConfigMap expired"), List.copyOf(restarts).subList(0, 2),
        "each gone version counted as a restart, in a stream or as the answer");
  }

  @Test
  void aRefusedKindIsReportedAndWorksOnceGranted() throws Exception {
    AtomicInteger lists = new AtomicInteger();
    startPaged(q -> {
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
    assertTrue(reflectors.tracks("/ConfigMap"));
    assertFalse(reflectors.listable("/ConfigMap"), "tracked, but its owners are out of sight");

    await("retried until granted").atMost(Duration.ofSeconds(10)).until(() -> reflectors.refusedKinds().isEmpty());
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains("upserted a@5"));
    assertEquals(List.of(CONFIGMAPS), reflectors.listableKinds());
    assertTrue(reflectors.listable("/ConfigMap"));
  }
}
