package dev.syncgc.engine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A kind's reflectors replaced (its CRD's storage version changed) or stopped (its CRD deleted): what
 * the graph holds of the kind follows the new list, and nothing of a deleted CRD stays. An object
 * deleted while no informer watched it must not stay in the graph (an owner would wait on it for
 * ever); nor may one the list is older than. The engine's graph builder on a scripted API server.
 */
class RelistTest {
  /** A watch's ERROR event: the version it watched from is compacted away (410). */
  private static final String GONE = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
      + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 10 (30)\",\"reason\":\"Expired\","
      + "\"code\":410}}\n";
  private static final TrackedKind V1 = new TrackedKind("example.com", "v1", "Gadget", "gadgets", true);
  private static final TrackedKind V2 = new TrackedKind("example.com", "v2", "Gadget", "gadgets", true);
  private ScriptedApiServer server;
  private EventRecorder events;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private static final TrackedKind GIZMO = new TrackedKind("other.example.com", "v1", "Gizmo", "gizmos", true);
  private final AtomicReference<List<String>> gizmos = new AtomicReference<>(List.of());
  private final java.util.concurrent.atomic.AtomicBoolean expireGizmos = new java.util.concurrent.atomic.AtomicBoolean();
  private Engine engine;
  /** The objects each version's LIST returns now. */
  /** The next watch answers 410 Gone (an ERROR event). */
  private final java.util.concurrent.atomic.AtomicBoolean expire = new java.util.concurrent.atomic.AtomicBoolean();
  private final Map<String, AtomicReference<List<String>>> listed = Map.of(
      "v1", new AtomicReference<>(List.of()), "v2", new AtomicReference<>(List.of()));

  private static String item(String version, String name, String owner, long rv) {
    String owners = owner == null ? "" : ",\"ownerReferences\":[{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\","
        + "\"name\":\"" + owner + "\",\"uid\":\"uid-" + owner + "\"}]";
    return "{\"apiVersion\":\"example.com/" + version + "\",\"kind\":\"Gadget\",\"metadata\":{\"namespace\":\"ns\","
        + "\"name\":\"" + name + "\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" + rv + "\"" + owners + "}}";
  }

  private void start() {
    server = new ScriptedApiServer(exchange -> {
      String path = exchange.getRequestURI().getPath();
      String query = exchange.getRequestURI().getQuery() == null ? "" : exchange.getRequestURI().getQuery();
      String version = path.startsWith("/apis/example.com/v2/") ? "v2" : "v1";
      if (path.endsWith("/gizmos")) { // another kind, in its own group
        if (query.contains("watch=true")) {
          return new Answer(200, null, expireGizmos.getAndSet(false) ? GONE : "");
        }
        return new Answer(200, null, "{\"apiVersion\":\"other.example.com/v1\",\"kind\":\"GizmoList\","
            + "\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" + String.join(",", gizmos.get()) + "]}");
      }
      if (!path.endsWith("/gadgets")) {
        return new Answer(404, null, "{\"kind\":\"Status\",\"code\":404}");
      }
      if (query.contains("watch=true")) { // a watch that ends at once, or says its version is gone
        return new Answer(200, null, expire.getAndSet(false) ? GONE : "");
      }
      return new Answer(200, null, "{\"apiVersion\":\"example.com/" + version + "\",\"kind\":\"GadgetList\","
          + "\"metadata\":{\"resourceVersion\":\"" + (version.equals("v1") ? 10 : 20) + "\"},\"items\":["
          + String.join(",", listed.get(version).get()) + "]}");
    });
    SyncgcMetrics metrics = new SyncgcMetrics(registry);
    events = new EventRecorder(server.client, new RateLimiter(0, 0), metrics, Clock.systemUTC(), Duration.ofMinutes(1),
        "relist-test");
    Discovery discovery = new Discovery(server.client, Duration.ofHours(1), Clock.systemUTC());
    discovery.learn(V1); // as the CRD watch teaches it: the kind a syncgc.dev/uses entry names
    engine = new Engine(discovery,
        new EngineSettings(1, Set.of(), Duration.ofSeconds(30), Duration.ofMillis(10), Duration.ofMinutes(1),
            Duration.ofSeconds(30), Duration.ofSeconds(5), true, Duration.ofSeconds(5)),
        new KubeApi(server.client, new RateLimiter(0, 0), metrics), new KubeApi(server.client, new RateLimiter(0, 0), metrics),
        events, metrics, Clock.systemUTC(),
        ns -> Map.of());
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
    if (events != null) {
      events.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aNewInformerForTheKindReplacesWhatTheGraphHeldOfIt() throws Exception {
    listed.get("v1").set(List.of(item("v1", "owner", null, 5), item("v1", "gone", "owner", 6),
        item("v1", "kept", "owner", 7)));
    start();
    engine.track(V1).get(30, TimeUnit.SECONDS);
    await("the first list is in the graph").atMost(Duration.ofSeconds(10)).until(() -> engine.graphSnapshot().size() == 3);

    // the CRD's storage version changes to v2; "gone" is deleted before the new informer lists
    listed.get("v2").set(List.of(item("v2", "owner", null, 5), item("v2", "kept", "owner", 7)));
    engine.track(V2).get(30, TimeUnit.SECONDS);

    await("what the new list no longer holds leaves the graph").atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertEquals(2, engine.graphSnapshot().size(), "objects in the graph"));
  }

  @Test
  void aDeletedCrdTakesItsObjectsOutOfTheGraph() throws Exception {
    listed.get("v1").set(List.of(item("v1", "owner", null, 5), item("v1", "dependent", "owner", 6)));
    start();
    engine.track(V1).get(30, TimeUnit.SECONDS);
    await("the list is in the graph").atMost(Duration.ofSeconds(10)).until(() -> engine.graphSnapshot().size() == 2);

    // the CRD is deleted: the API server deleted its objects, their watch events never came
    engine.untrack(V1);

    await("nothing of the deleted CRD's kind is left").atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertEquals(0, engine.graphSnapshot().size(), "objects in the graph"));
  }

  @Test
  void aWatchWhoseVersionIsGoneRelistsAndTheListReplacesTheKindsContents() throws Exception {
    listed.get("v1").set(List.of(item("v1", "owner", null, 5)));
    start();
    engine.track(V1).get(30, TimeUnit.SECONDS);
    await("the list is in the graph").atMost(Duration.ofSeconds(10)).until(() -> engine.graphSnapshot().size() == 1);

    // as the freshness check adds what its own LIST found (the reflector listed at 10)
    engine.upserted(V1, meta(item("v1", "newer", "owner", 25))); // created after the reflector's list
    engine.upserted(V1, meta(item("v1", "outgrown", "owner", 8))); // existed before it: deleted since
    assertEquals(3, engine.graphSnapshot().size());
    expire.set(true); // the watch's version is compacted away: the reflector lists again, at 10

    await("the new list replaces the kind's contents; what is newer than it stays").atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertEquals(2, engine.graphSnapshot().size(), "owner and newer are left"));
    assertEquals(2, server.seen().stream().filter(r -> r.startsWith("GET ") && !r.contains("watch=true")).count(),
        "listed again after the 410: " + server.seen());
  }

  /**
   * SPEC "In use": a held object proceeds within 2 s of its last user going. A user deleted while no
   * watch saw it leaves the graph through a relist of its kind; what it held, of another kind (not
   * listed again), must be looked at again then, not at the next recheck (30 s here).
   */
  @Test
  void aUserDeletedWhileNoWatchSawItLetsWhatItHeldGoAtOnce() throws Exception {
    String used = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Gadget\",\"metadata\":{\"namespace\":\"ns\","
        + "\"name\":\"db\",\"uid\":\"uid-db\",\"resourceVersion\":\"5\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\","
        + "\"finalizers\":[\"syncgc.dev/GarbageCollectionInProgress\"],"
        + "\"annotations\":{\"syncgc.dev/propagation\":\"Synchronous\"}}}";
    String user = "{\"apiVersion\":\"other.example.com/v1\",\"kind\":\"Gizmo\",\"metadata\":{\"namespace\":\"ns\","
        + "\"name\":\"app\",\"uid\":\"uid-app\",\"resourceVersion\":\"6\","
        + "\"annotations\":{\"syncgc.dev/uses\":\"gadgets.example.com/db\"}}}";
    listed.get("v1").set(List.of(used));
    gizmos.set(List.of(user));
    start();
    engine.track(V1).get(30, TimeUnit.SECONDS);
    engine.track(GIZMO).get(30, TimeUnit.SECONDS);
    engine.startWorkers();
    await("db is held in use by app").atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("syncgc.in.use.holds").gauge().value() == 1);
    assertEquals(0, patchesOfDb(), "nothing of db's deletion starts while app uses it");

    gizmos.set(List.of()); // app is deleted while no watch sees it
    expireGizmos.set(true); // the Gizmo reflector lists again

    await("db's deletion starts as soon as the relist drops app").atMost(Duration.ofSeconds(2))
        .until(() -> patchesOfDb() > 0);
  }

  private long patchesOfDb() {
    return server.seen().stream().filter(r -> r.startsWith("PATCH ") && r.contains("/gadgets/db")).count();
  }

  private ObjectMetadata meta(String json) {
    return new MetadataReader().read(V1, parse(json));
  }

  private GenericKubernetesResource parse(String json) {
    return server.client.getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class);
  }
}

