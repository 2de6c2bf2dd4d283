package dev.syncgc.e2e.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The metadata the soak needs from an object as kube-apiserver stores it in etcd: custom resources
 * as JSON, built-in kinds (ConfigMaps, Pods) as protobuf behind the {@code k8s\0} prefix, in a
 * {@code runtime.Unknown} envelope whose {@code raw} field (2) holds the object, whose field 1 is its
 * ObjectMeta (k8s.io/apimachinery generated.proto: uid 5, deletionTimestamp 9, ownerReferences 13
 * with uid 4, finalizers 14). Just enough protobuf to walk those fields; nothing else is decoded.
 */
final class EtcdValues {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] PROTOBUF = {0x6b, 0x38, 0x73, 0x00};

  /** What one stored version says: its uid, owner uids, finalizers, and whether it is being deleted. */
  record Meta(String uid, List<String> owners, List<String> finalizers, boolean deleting) {}

  private EtcdValues() {}

  /** The metadata of a stored value, or null if it is neither of the two encodings. */
  static Meta decode(byte[] value) {
    try {
      if (startsWith(value, PROTOBUF)) {
        byte[] object = field(value, PROTOBUF.length, value.length, 2);
        byte[] meta = object == null ? null : field(object, 0, object.length, 1);
        return meta == null ? null : objectMeta(meta);
      }
      if (value.length > 0 && value[0] == '{') {
        JsonNode m = JSON.readTree(value).path("metadata");
        List<String> owners = new ArrayList<>();
        m.path("ownerReferences").forEach(r -> owners.add(r.path("uid").asText()));
        List<String> finalizers = new ArrayList<>();
        m.path("finalizers").forEach(f -> finalizers.add(f.asText()));
        return new Meta(m.path("uid").asText(null), owners, finalizers, !m.path("deletionTimestamp").isMissingNode()
            && !m.path("deletionTimestamp").isNull());
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return null;
  }

  private static Meta objectMeta(byte[] b) {
    String uid = null;
    boolean deleting = false;
    List<String> owners = new ArrayList<>();
    List<String> finalizers = new ArrayList<>();
    int[] pos = {0};
    while (pos[0] < b.length) {
      long tag = varint(b, pos);
      int number = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (wire != 2) {
        skip(b, pos, wire);
        continue;
      }
      int length = (int) varint(b, pos);
      int start = pos[0];
      pos[0] += length;
      switch (number) {
        case 5 -> uid = new String(b, start, length, StandardCharsets.UTF_8);
        case 9 -> deleting = true;
        case 13 -> {
          byte[] ref = field(b, start, start + length, 4);
          owners.add(ref == null ? "" : new String(ref, StandardCharsets.UTF_8));
        }
        case 14 -> finalizers.add(new String(b, start, length, StandardCharsets.UTF_8));
        default -> { }
      }
    }
    return new Meta(uid, owners, finalizers, deleting);
  }

  /** The bytes of the first length-delimited field {@code number} in b[from, to), or null. */
  static byte[] field(byte[] b, int from, int to, int number) {
    int[] pos = {from};
    while (pos[0] < to) {
      long tag = varint(b, pos);
      int wire = (int) (tag & 7);
      if (wire != 2) {
        skip(b, pos, wire);
        continue;
      }
      int length = (int) varint(b, pos);
      if ((int) (tag >>> 3) == number) {
        byte[] out = new byte[length];
        System.arraycopy(b, pos[0], out, 0, length);
        return out;
      }
      pos[0] += length;
    }
    return null;
  }

  private static void skip(byte[] b, int[] pos, int wire) {
    switch (wire) {
      case 0 -> varint(b, pos);
      case 1 -> pos[0] += 8;
      case 5 -> pos[0] += 4;
      default -> throw new IllegalArgumentException("protobuf wire type " + wire + " at " + pos[0]);
    }
  }

  private static long varint(byte[] b, int[] pos) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte x = b[pos[0]++];
      value |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("varint too long");
  }

  private static boolean startsWith(byte[] b, byte[] prefix) {
    if (b.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (b[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
