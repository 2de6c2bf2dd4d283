package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.kube.MetadataDecoder.Bookmark;
import dev.syncgc.kube.MetadataDecoder.Deleted;
import dev.syncgc.kube.MetadataDecoder.Failed;
import dev.syncgc.kube.MetadataDecoder.Upserted;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decoder on what a v1.36 API server sent (captured from the test plane with curl). */
class MetadataDecoderTest {
  private static final TrackedKind CONFIGMAPS = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = MetadataDecoderTest.class.getResourceAsStream("/reflector/" + name)) {
      return in.readAllBytes();
    }
  }

  private static List<MetadataDecoder.Event> events(String name) throws IOException {
    List<MetadataDecoder.Event> out = new ArrayList<>();
    for (String line : new String(resource(name), StandardCharsets.UTF_8).split("\n")) {
      out.add(MetadataDecoder.event(CONFIGMAPS, line.getBytes(StandardCharsets.UTF_8), 0,
          line.getBytes(StandardCharsets.UTF_8).length));
    }
    return out;
  }

  @Test
  void aListPageKeepsWhatTheGraphUsesAndSkipsTheRest() throws IOException {
    List<ObjectMetadata> items = new ArrayList<>();
    MetadataDecoder.Page page = MetadataDecoder.page(CONFIGMAPS, resource("list-page.json"), items::add);

    assertEquals(237, page.resourceVersion());
    assertTrue(page.continueToken().startsWith("eyJ2Ijoi"), page.continueToken());
    assertEquals(1, items.size());
    ObjectMetadata dep = items.get(0);
    assertEquals("v1", dep.ref().apiVersion(), "the tracked kind's, not meta.k8s.io/v1");
    assertEquals("ConfigMap", dep.ref().kind());
    assertEquals("dec", dep.ref().namespace());
    assertEquals("dep", dep.ref().name());
    assertEquals("54822022-6341-4be1-a563-0e2a548f33f9", dep.uid());
    assertEquals(234, dep.resourceVersion());
    assertEquals(List.of(new OwnerLink("f35dc3d9-6e08-41a3-bca0-df68fc3bca86", "v1", "ConfigMap", "owner")),
        dep.owners());
    assertEquals(List.of("example.com/hold"), dep.finalizers());
    assertEquals(Map.of("syncgc.dev/policy", "Foreground"), dep.annotations(), "only syncgc.dev/ annotations");
    assertEquals(Map.of("app", "x"), dep.labels());
    assertNull(dep.deletionTimestamp());
    assertSame("the kind string is interned", CONFIGMAPS.kind(), dep.ref().kind());
  }

  @Test
  void anEmptyPageMayHaveNullItems() throws IOException {
    String body = "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
        + "\"metadata\":{\"resourceVersion\":\"100\"},\"items\":null}";
    List<ObjectMetadata> items = new ArrayList<>();
    MetadataDecoder.Page page = MetadataDecoder.page(CONFIGMAPS, body.getBytes(StandardCharsets.UTF_8), items::add);
    assertEquals(100, page.resourceVersion());
    assertNull(page.continueToken());
    assertTrue(items.isEmpty());
  }

  @Test
  void watchEventsOfEachType() throws IOException {
    List<MetadataDecoder.Event> events = events("watch-events.json");

    Bookmark end = assertInstanceOf(Bookmark.class, events.get(0));
    assertEquals(240, end.resourceVersion());
    assertTrue(end.initialEventsEnd(), "the watch list's end");
    Upserted modified = assertInstanceOf(Upserted.class, events.get(1));
    assertEquals(241, modified.object().resourceVersion());
    assertEquals("1", modified.object().annotation("syncgc.dev/x"));
    Deleted deleted = assertInstanceOf(Deleted.class, events.get(2));
    assertEquals("owner", deleted.object().ref().name());
    assertEquals(242, deleted.object().resourceVersion());
    Upserted beingDeleted = assertInstanceOf(Upserted.class, events.get(3));
    assertEquals(Instant.parse("2026-11-25T19:58:10Z"), beingDeleted.object().deletionTimestamp());
    assertEquals(0L, beingDeleted.object().deletionGracePeriodSeconds());
    Bookmark bookmark = assertInstanceOf(Bookmark.class, events.get(4));
    assertEquals(243, bookmark.resourceVersion());
    assertFalse(bookmark.initialEventsEnd());
  }

  @Test
  void anErrorEventCarriesItsStatusCode() {
    // the Status a watch sends when its resourceVersion was compacted (apimachinery's errors.NewResourceExpired)
    String json = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        + "\"status\":\"Failure\",\"message\":\"too old resource version: 2 (252)\",\"reason\":\"Expired\","
        + "\"code\":410}}";
    Failed failed = assertInstanceOf(Failed.class,
        MetadataDecoder.event(CONFIGMAPS, json.getBytes(StandardCharsets.UTF_8), 0, json.length()));
    assertEquals(410, failed.code());
    assertEquals("too old resource version: 2 (252)", failed.message());
  }

  @Test
  void anApiThatCannotConvertSendsWholeObjectsAndTheirMetadataIsRead() {
    // an aggregated API without PartialObjectMetadata support answers application/json: the full object
    String json = "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"metrics.example/v1\",\"kind\":\"Sample\","
        + "\"spec\":{\"metadata\":{\"name\":\"not-this\"},\"x\":[1,2,{\"y\":null}]},"
        + "\"metadata\":{\"name\":\"s\",\"namespace\":\"n\",\"uid\":\"u1\",\"resourceVersion\":\"9\","
        + "\"managedFields\":[{\"fieldsV1\":{\"f:spec\":{}}}]},\"status\":{\"code\":3}}}";
    Upserted added = assertInstanceOf(Upserted.class,
        MetadataDecoder.event(CONFIGMAPS, json.getBytes(StandardCharsets.UTF_8), 0, json.length()));
    assertEquals("s", added.object().ref().name());
    assertEquals("u1", added.object().uid());
    assertEquals(9, added.object().resourceVersion());
  }

  @Test
  void anEventIsReadFromItsSliceOfTheBuffer() {
    String json = "xx{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"77\"}}}yy";
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    Bookmark b = assertInstanceOf(Bookmark.class, MetadataDecoder.event(CONFIGMAPS, bytes, 2, bytes.length - 4));
    assertEquals(77, b.resourceVersion());
  }

  private static void assertSame(String message, Object expected, Object actual) {
    org.junit.jupiter.api.Assertions.assertSame(expected, actual, message);
  }
}
