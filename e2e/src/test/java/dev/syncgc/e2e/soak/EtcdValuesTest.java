package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stored values as kube-apiserver writes them, encoded here field by field (generated.proto's numbers). */
class EtcdValuesTest {

  /** A protobuf field: length-delimited (wire type 2) or varint (0). */
  private static byte[] field(int number, byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, (number << 3) | 2);
    varint(out, bytes.length);
    out.writeBytes(bytes);
    return out.toByteArray();
  }

  private static byte[] varintField(int number, long value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, number << 3);
    varint(out, value);
    return out.toByteArray();
  }

  private static byte[] text(int number, String s) {
    return field(number, s.getBytes(StandardCharsets.UTF_8));
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void aConfigMapInProtobufGivesItsUidOwnersFinalizersAndDeletion() {
    byte[] owner = concat(text(1, "Widget"), text(3, "root"), text(4, "u-root"), text(5, "test.syncgc.dev/v1"),
        varintField(7, 1));
    byte[] meta = concat(text(1, "cm"), text(3, "ns"), text(5, "u-cm"), text(6, "42"), varintField(7, 1),
        field(8, varintField(1, 1_900_000_000L)), field(9, varintField(1, 1_900_000_100L)), varintField(10, 0),
        field(11, concat(text(1, "k"), text(2, "v"))), field(13, owner), field(13, concat(text(4, "u-keeper"))),
        text(14, "soak.syncgc.dev/hold"), text(14, "syncgc.dev/GarbageCollectionInProgress"),
        field(17, text(1, "kube-controller-manager")));
    byte[] configMap = concat(field(1, meta), field(2, concat(text(1, "soak"), text(2, "1"))));
    byte[] unknown = concat(field(1, concat(text(1, "v1"), text(2, "ConfigMap"))), field(2, configMap),
        text(3, ""), text(4, ""));
    byte[] stored = concat(new byte[] {0x6b, 0x38, 0x73, 0x00}, unknown);
    assertEquals(new EtcdValues.Meta("u-cm", List.of("u-root", "u-keeper"),
        List.of("soak.syncgc.dev/hold", "syncgc.dev/GarbageCollectionInProgress"), true), EtcdValues.decode(stored));
  }

  @Test
  void aCustomResourceInJson() {
    String json = "{\"apiVersion\":\"test.syncgc.dev/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"a\","
        + "\"uid\":\"u-a\",\"ownerReferences\":[{\"uid\":\"u-r\",\"kind\":\"Widget\",\"name\":\"r\"}],"
        + "\"finalizers\":[\"f\"]}}";
    assertEquals(new EtcdValues.Meta("u-a", List.of("u-r"), List.of("f"), false),
        EtcdValues.decode(json.getBytes(StandardCharsets.UTF_8)));
    String deleting = json.replace("\"finalizers\"", "\"deletionTimestamp\":\"2030-01-01T00:00:00Z\",\"finalizers\"");
    assertEquals(true, EtcdValues.decode(deleting.getBytes(StandardCharsets.UTF_8)).deleting());
  }

  @Test
  void anythingElseIsNotDecoded() {
    assertNull(EtcdValues.decode(new byte[] {1, 2, 3}));
    assertNull(EtcdValues.decode(new byte[] {0x6b, 0x38, 0x73, 0x00, (byte) 0xff}));
  }
}
