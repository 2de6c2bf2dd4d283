package dev.syncgc.kube;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads LIST pages and watch events straight into {@link ObjectMetadata} with Jackson's streaming
 * parser: managedFields, other annotations, spec and status (an API that cannot convert to
 * PartialObjectMetadata sends whole objects) are skipped unread, never built as trees.
 */
public final class MetadataDecoder {
  private static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";
  private static final JsonFactory JSON = new JsonFactory();

  /** What a watch event says. */
  public sealed interface Event permits Upserted, Deleted, Bookmark, Failed {}

  public record Upserted(ObjectMetadata object) implements Event {}

  public record Deleted(ObjectMetadata object) implements Event {}

  /** @param initialEventsEnd a watch list's initial events are all sent */
  public record Bookmark(long resourceVersion, boolean initialEventsEnd) implements Event {}

  /** An ERROR event: the Status's code (410: the version is compacted away) and message. */
  public record Failed(int code, String message) implements Event {}

  /** @param continueToken null on the last page */
  public record Page(long resourceVersion, String continueToken) {}

  private MetadataDecoder() {}

  /** Reads one page of a LIST, handing each item to {@code each} as it is read. */
  public static Page page(TrackedKind kind, byte[] body, Consumer<ObjectMetadata> each) {
    try (JsonParser p = JSON.createParser(body)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      Fields list = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("metadata")) {
          list = metadata(p);
        } else if (field.equals("items") && value == JsonToken.START_ARRAY) {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            each.accept(object(p).toMetadata(kind));
          }
        } else {
          p.skipChildren();
        }
      }
      if (list == null) {
        throw new IOException("a list without metadata");
      }
      return new Page(version(list.resourceVersion), list.continueToken);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one watch event from {@code length} bytes at {@code offset}. */
  public static Event event(TrackedKind kind, byte[] buffer, int offset, int length) {
    try (JsonParser p = JSON.createParser(buffer, offset, length)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      String type = null;
      Fields object = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("type")) {
          type = p.getText();
        } else if (field.equals("object") && value == JsonToken.START_OBJECT) {
          object = object(p);
        } else {
          p.skipChildren();
        }
      }
      if (type == null || object == null) {
        throw new IOException("a watch event without type or object");
      }
      return switch (type) {
        case "ADDED", "MODIFIED" -> new Upserted(object.toMetadata(kind));
        case "DELETED" -> new Deleted(object.toMetadata(kind));
        case "BOOKMARK" -> new Bookmark(version(object.resourceVersion), object.initialEventsEnd);
        case "ERROR" -> new Failed(object.code, object.message);
        default -> throw new IOException("unknown watch event type " + type);
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** resourceVersions are etcd revisions; Kubernetes 1.34 made comparing them part of the API. */
  public static long version(String resourceVersion) {
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException | NullPointerException e) {
      return 0;
    }
  }

  /** An object's metadata, and a Status's code and message (an ERROR event's object is a Status). */
  private static Fields object(JsonParser p) throws IOException {
    Fields f = new Fields();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "metadata" -> f = metadata(p).withStatus(f);
        case "code" -> f.code = p.getIntValue();
        case "message" -> f.message = p.getText();
        default -> p.skipChildren();
      }
    }
    return f;
  }

  private static Fields metadata(JsonParser p) throws IOException {
    Fields f = new Fields();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      switch (field) {
        case "name" -> f.name = p.getText();
        case "namespace" -> f.namespace = Interner.intern(p.getText());
        case "uid" -> f.uid = p.getText();
        case "resourceVersion" -> f.resourceVersion = p.getText();
        case "continue" -> f.continueToken = p.getText().isEmpty() ? null : p.getText();
        case "deletionTimestamp" -> f.deletionTimestamp = Instant.parse(p.getText());
        case "deletionGracePeriodSeconds" -> f.deletionGracePeriodSeconds = p.getLongValue();
        case "finalizers" -> {
          while (p.nextToken() == JsonToken.VALUE_STRING) {
            f.finalizers.add(Interner.intern(p.getText()));
          }
        }
        case "labels" -> {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = Interner.intern(p.currentName());
            p.nextToken();
            f.labels.put(key, Interner.intern(p.getText()));
          }
        }
        case "annotations" -> annotations(p, f);
        case "ownerReferences" -> {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            f.owners.add(owner(p));
          }
        }
        default -> p.skipChildren(); // managedFields above all
      }
    }
    return f;
  }

  private static void annotations(JsonParser p, Fields f) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      p.nextToken();
      if (key.startsWith(Names.ANNOTATION_PREFIX)) {
        f.annotations.put(Interner.intern(key), p.getText());
      } else if (key.equals(INITIAL_EVENTS_END)) {
        f.initialEventsEnd = "true".equals(p.getText());
      }
    }
  }

  private static OwnerLink owner(JsonParser p) throws IOException {
    String uid = null;
    String apiVersion = null;
    String kind = null;
    String name = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "uid" -> uid = p.getText();
        case "apiVersion" -> apiVersion = Interner.intern(p.getText());
        case "kind" -> kind = Interner.intern(p.getText());
        case "name" -> name = p.getText();
        default -> p.skipChildren();
      }
    }
    return new OwnerLink(uid, apiVersion, kind, name);
  }

  private static void expect(JsonToken actual, JsonToken expected) throws IOException {
    if (actual != expected) {
      throw new IOException("expected " + expected + ", found " + actual);
    }
  }

  /** What is read of one object before it is known which event (or list item) it is. */
  private static final class Fields {
    String name;
    String namespace;
    String uid;
    String resourceVersion;
    String continueToken;
    Instant deletionTimestamp;
    Long deletionGracePeriodSeconds;
    boolean initialEventsEnd;
    final List<OwnerLink> owners = new ArrayList<>();
    final List<String> finalizers = new ArrayList<>();
    final Map<String, String> annotations = new HashMap<>();
    final Map<String, String> labels = new HashMap<>();
    int code;
    String message;

    /** Keeps a Status's code and message read before its metadata. */
    Fields withStatus(Fields before) {
      code = before.code;
      message = before.message;
      return this;
    }

    /** @param kind the kind it was listed or watched as (a PartialObjectMetadata's own is meta.k8s.io's) */
    ObjectMetadata toMetadata(TrackedKind kind) throws IOException {
      if (name == null || uid == null) {
        throw new IOException("an object without name or uid");
      }
      ObjectRef ref = new ObjectRef(Interner.intern(kind.apiVersion()), Interner.intern(kind.kind()), namespace,
          name, uid);
      return new ObjectMetadata(ref, version(resourceVersion), owners, finalizers, deletionTimestamp,
          deletionGracePeriodSeconds, annotations, labels);
    }
  }
}
