package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.ScriptedApiServer.Received;
import dev.syncgc.uninstall.Uninstall;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every DELETE syncgc sends carries its DeleteOptions (the uid precondition) as a body of fixed
 * length, announced by {@code Content-Length}, never chunked: the API server then either reads the
 * whole body or fails the request without executing it (a sender killed between headers and body
 * leaves a request whose body never arrives, answered 500, nothing deleted). Checked on the wire of
 * a loopback server for the writes the engine makes (a dependent's DELETE, the Orphan hand-over) and
 * for the uninstall's hand-overs, which go through {@link Uninstall#run()} itself.
 */
class DeleteOptionsSentTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private static final String OK = "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
      + "\"metadata\":{\"name\":\"x\",\"namespace\":\"ns\",\"uid\":\"u\",\"resourceVersion\":\"9\"}}";

  private ScriptedApiServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private KubeApi api(Function<HttpExchange, Answer> script) {
    server = new ScriptedApiServer(script);
    return new KubeApi(server.client, RateLimiter.unlimited(), CallCounts.NONE);
  }

  @Test
  void theEnginesDeletesSendTheirUidPreconditionAsABodyOfFixedLength() throws Exception {
    ObjectWrites writes = new ObjectWrites(api(x -> new Answer(200, null, OK)));
    ObjectRef dependent = new ObjectRef("v1", "ConfigMap", "ns", "dependent", "u-dependent");
    ObjectRef owner = new ObjectRef("v1", "ConfigMap", "ns", "owner", "u-owner");

    // as DependentActions deletes a dependent, and StepExecutor hands an Orphan owner over
    assertTrue(writes.delete(CONFIGMAPS, dependent, 7, 30L, "Background", ObjectWrites.UNCHECKED).ok());
    assertTrue(writes.delete(CONFIGMAPS, owner, 9, 0L, "Orphan", ObjectWrites.UNCHECKED).ok());
    assertTrue(writes.delete(CONFIGMAPS, dependent, 0, null, "Background", ObjectWrites.UNCHECKED).ok());

    List<Received> deletes = deletes();
    assertEquals(3, deletes.size(), server.seen().toString());
    assertSentWhole(deletes.get(0), "u-dependent", "7", "Background");
    assertEquals(30, body(deletes.get(0)).path("gracePeriodSeconds").asInt());
    assertSentWhole(deletes.get(1), "u-owner", "9", "Orphan");
    assertEquals(0, body(deletes.get(1)).path("gracePeriodSeconds").asInt(-1));
    assertSentWhole(deletes.get(2), "u-dependent", null, "Background");
  }

  @Test
  void theUninstallsHandOversSendTheirUidPreconditionAsABodyOfFixedLength() throws Exception {
    KubeApi api = api(DeleteOptionsSentTest::apiServer);

    Uninstall.Summary summary = new Uninstall(server.client, api).run();

    assertEquals(2, summary.handedOver(), summary + " " + server.seen());
    Map<String, Received> deletes = deletes().stream().collect(Collectors.toMap(Received::path, r -> r));
    assertEquals(2, deletes.size(), server.seen().toString());
    assertSentWhole(deletes.get("/api/v1/namespaces/ns/configmaps/orphan"), "u-orphan", null, "Orphan");
    assertSentWhole(deletes.get("/api/v1/namespaces/ns/configmaps/sync"), "u-sync", null, "Foreground");
  }

  /** Discovery serving ConfigMaps only, two of them held and being deleted; no policies; writes succeed. */
  private static Answer apiServer(HttpExchange x) {
    String path = x.getRequestURI().getPath();
    String method = x.getRequestMethod();
    if (method.equals("GET") && path.equals("/api/v1")) {
      return new Answer(200, null, "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":[{\"name\":"
          + "\"configmaps\",\"namespaced\":true,\"kind\":\"ConfigMap\",\"verbs\":[\"delete\",\"get\",\"list\","
          + "\"patch\"]}]}");
    }
    if (method.equals("GET") && path.equals("/apis")) {
      return new Answer(200, null, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}");
    }
    if (method.equals("GET") && path.equals("/api/v1/configmaps")) {
      return new Answer(200, null, "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
          + "\"metadata\":{\"resourceVersion\":\"12\"},\"items\":[" + held("orphan", "Orphan") + ","
          + held("sync", "Synchronous") + "]}");
    }
    if (method.equals("DELETE") || method.equals("PATCH")) {
      return new Answer(200, null, OK);
    }
    return new Answer(404, null, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}");
  }

  private static String held(String name, String propagation) {
    return "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"ns\",\"uid\":\"u-" + name + "\",\"resourceVersion\":\"11\",\"deletionTimestamp\":"
        + "\"2026-01-01T00:00:00Z\",\"finalizers\":[\"" + Names.FINALIZER + "\"],\"annotations\":{\""
        + Names.PROPAGATION + "\":\"" + propagation + "\"}}}";
  }

  private List<Received> deletes() {
    return server.received().stream().filter(r -> r.method().equals("DELETE")).toList();
  }

  private static void assertSentWhole(Received r, String uid, String resourceVersion, String propagation)
      throws Exception {
    String what = r.method() + " " + r.path() + " " + r.body();
    assertNull(r.transferEncoding(), "not streamed: " + what);
    assertEquals(String.valueOf(r.body().getBytes(StandardCharsets.UTF_8).length), r.contentLength(),
        "Content-Length announces the whole body: " + what);
    JsonNode body = body(r);
    assertEquals("DeleteOptions", body.path("kind").asText(), what);
    assertEquals(uid, body.path("preconditions").path("uid").asText(null), what);
    assertEquals(resourceVersion, body.path("preconditions").path("resourceVersion").asText(null), what);
    assertEquals(propagation, body.path("propagationPolicy").asText(null), what);
  }

  private static JsonNode body(Received r) throws Exception {
    return JSON.readTree(r.body());
  }
}
