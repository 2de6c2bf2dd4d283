package dev.syncgc.uninstall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.syncgc.core.model.Names;
import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The release of a restricted release (the chart's {@code trackedKinds.everyServedKind: false}): its
 * ServiceAccount may list (and patch) only the granted kinds, so a kind it may not list is left alone
 * and named, not a failure; every other kind that cannot be listed still is. With every served kind
 * (the default) a forbidden kind fails the release, as before.
 */
class GrantedKindsReleaseTest {
  private static final String RESOURCES = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":["
      + "{\"name\":\"configmaps\",\"namespaced\":true,\"kind\":\"ConfigMap\",\"verbs\":[\"delete\",\"get\",\"list\","
      + "\"patch\"]},{\"name\":\"secrets\",\"namespaced\":true,\"kind\":\"Secret\",\"verbs\":[\"list\"]},"
      + "{\"name\":\"services\",\"namespaced\":true,\"kind\":\"Service\",\"verbs\":[\"list\"]}]}";
  private static final String HELD = "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
      + "\"metadata\":{\"resourceVersion\":\"12\"},\"items\":[{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
      + "\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"held\",\"namespace\":\"ns\",\"uid\":\"u-held\","
      + "\"resourceVersion\":\"11\",\"finalizers\":[\"" + Names.FINALIZER + "\"]}}]}";
  private static final String EMPTY = "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
      + "\"metadata\":{\"resourceVersion\":\"12\"},\"items\":[]}";
  private static final String OK = "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
      + "\"metadata\":{\"name\":\"held\",\"namespace\":\"ns\",\"uid\":\"u-held\",\"resourceVersion\":\"13\"}}";

  private ScriptedApiServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Discovery: ConfigMaps (one held), Secrets (listing forbidden), Services (answered {@code servicesCode}). */
  private Uninstall uninstall(int servicesCode) {
    server = new ScriptedApiServer(x -> answer(x, servicesCode));
    return new Uninstall(server.client, new KubeApi(server.client, RateLimiter.unlimited(), CallCounts.NONE));
  }

  private static Answer answer(HttpExchange x, int servicesCode) {
    String path = x.getRequestURI().getPath();
    String method = x.getRequestMethod();
    if (method.equals("PATCH") && path.equals("/api/v1/namespaces/ns/configmaps/held")) {
      return new Answer(200, null, OK);
    }
    if (!method.equals("GET")) {
      return status(405);
    }
    return switch (path) {
      case "/api/v1" -> new Answer(200, null, RESOURCES);
      case "/apis" -> new Answer(200, null, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}");
      case "/api/v1/configmaps" -> new Answer(200, null, HELD);
      case "/api/v1/secrets" -> status(403);
      case "/api/v1/services" -> servicesCode == 200 ? new Answer(200, null, EMPTY) : status(servicesCode);
      default -> status(404);
    };
  }

  private static Answer status(int code) {
    return new Answer(code, null, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":"
        + code + "}");
  }

  private List<String> patched() {
    return server.received().stream().filter(r -> r.method().equals("PATCH")).map(r -> r.path()).toList();
  }

  @Test
  void aKindTheRestrictedReleaseMayNotListIsLeftAloneAndNamedAndTheGrantedOnesAreReleased() {
    Uninstall.Summary summary = uninstall(200).run(true);

    assertTrue(summary.complete(), summary.toString());
    assertEquals(1, summary.released(), summary + " " + server.seen());
    assertEquals(List.of("/api/v1/namespaces/ns/configmaps/held"), patched());
    assertEquals(List.of(), summary.notListed());
    assertEquals(List.of("secrets"), summary.notGranted());
  }

  @Test
  void withEveryServedKindAForbiddenKindStillFailsTheRelease() {
    Uninstall.Summary summary = uninstall(200).run(false);

    assertFalse(summary.complete(), summary.toString());
    assertEquals(1, summary.released(), "the granted kinds are released all the same");
    assertEquals(List.of("secrets (forbidden)"), summary.notListed());
    assertEquals(List.of(), summary.notGranted());
    assertEquals(summary, uninstall(200).run(), "every served kind is the default");
  }

  @Test
  void inTheRestrictedModeAKindThatCannotBeListedForAnotherReasonStillFailsTheRelease() {
    Uninstall.Summary summary = uninstall(503).run(true);

    assertFalse(summary.complete(), summary.toString());
    assertEquals(List.of("services (HTTP 503)"), summary.notListed());
    assertEquals(List.of("secrets"), summary.notGranted());
  }
}
