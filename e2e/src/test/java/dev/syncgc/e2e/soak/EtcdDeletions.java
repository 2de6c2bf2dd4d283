package dev.syncgc.e2e.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every DELETE the store makes under {@code /registry/}, with its etcd revision, and every version
 * of the soak's kinds (owners, finalizers, deletionTimestamp: {@link EtcdValues}), read from etcd's
 * own watch (its JSON gateway) rather than from the API server: revisions are comparable across
 * kinds, no version is coalesced away, and a restart of kube-apiserver loses nothing. When etcd
 * itself restarts, the watch resumes from the revision after the last one seen (etcd keeps its
 * history), so no deletion or version is missed.
 */
final class EtcdDeletions implements AutoCloseable, Checks.History {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/registry/";
  /** The kinds whose versions are kept (the soak's objects): other keys only count for their DELETE. */
  static final List<String> KINDS = List.of("/registry/test.syncgc.dev/widgets/",
      "/registry/test.syncgc.dev/clusterwidgets/", "/registry/configmaps/", "/registry/pods/");

  /** One stored version of an object. */
  record Version(long revision, EtcdValues.Meta meta) {}

  private final String endpoint;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Map<String, Long> deletedAt = new HashMap<>();
  /** When the soak learnt of each deletion (System.nanoTime): for durations, never for order. */
  private final Map<String, Long> seenAt = new HashMap<>();
  /** The same moment on the wall clock, to compare with deadlines the operator records (same machine). */
  private final Map<String, Instant> goneAt = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final Map<String, List<Version>> versions = new HashMap<>();
  private final Map<String, Long> markedAt = new HashMap<>();
  private long decoded;
  private long undecodable;
  private final Thread reader;
  private volatile long nextRevision;
  private volatile boolean closed;
  private volatile InputStream current;
  private int reconnects;

  EtcdDeletions(String endpoint) throws Exception {
    this.endpoint = endpoint;
    this.nextRevision = currentRevision() + 1;
    this.reader = new Thread(this::run, "etcd-deletions");
    reader.setDaemon(true);
    reader.start();
  }

  long currentRevision() throws Exception {
    String body = "{\"key\":\"" + b64(PREFIX) + "\",\"limit\":1,\"keys_only\":true}";
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/v3/kv/range"))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body()).path("header").path("revision").asLong();
  }

  private void run() {
    while (!closed) {
      try {
        String body = "{\"create_request\":{\"key\":\"" + b64(PREFIX) + "\",\"range_end\":\"" + b64("/registry0")
            + "\",\"start_revision\":" + nextRevision + "}}";
        HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/v3/watch"))
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        current = r.body();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = lines.readLine()) != null) {
            take(JSON.readTree(line).path("result"));
          }
        }
      } catch (Exception e) {
        if (closed) {
          return;
        }
      }
      synchronized (this) {
        reconnects++;
      }
      try {
        Thread.sleep(200); // etcd restarting: try again shortly, from the revision after the last seen
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized void take(JsonNode result) {
    if (result.path("compact_revision").asLong() > 0) {
      problems.add("etcd compacted its history past revision " + nextRevision + ": deletions may be missing");
    }
    for (JsonNode event : result.path("events")) {
      long revision = event.path("kv").path("mod_revision").asLong();
      nextRevision = Math.max(nextRevision, revision + 1);
      String key = new String(Base64.getDecoder().decode(event.path("kv").path("key").asText()),
          StandardCharsets.UTF_8);
      if ("DELETE".equals(event.path("type").asText())) {
        deletedAt.put(key, revision);
        markedAt.putIfAbsent(key, revision);
        seenAt.put(key, System.nanoTime());
        goneAt.put(key, Instant.now());
      } else if (KINDS.stream().anyMatch(key::startsWith)) { // a PUT: the JSON gateway omits the default type
        EtcdValues.Meta meta = EtcdValues.decode(Base64.getDecoder().decode(event.path("kv").path("value").asText()));
        if (meta == null) {
          undecodable++;
          continue;
        }
        decoded++;
        versions.computeIfAbsent(key, k -> new ArrayList<>()).add(new Version(revision, meta));
        if (meta.deleting()) {
          markedAt.putIfAbsent(key, revision);
        }
      }
    }
    notifyAll();
  }

  /** The revision at which the object under this key was deleted, or null if not seen. */
  @Override
  public synchronized Long deletedAt(String etcdKey) {
    return deletedAt.get(etcdKey);
  }

  @Override
  public synchronized Long markedAt(String etcdKey) {
    return markedAt.get(etcdKey);
  }

  @Override
  public synchronized Long unreferencedAt(String etcdKey, String ownerUid) {
    boolean named = false;
    for (Version v : versions.getOrDefault(etcdKey, List.of())) {
      if (v.meta().owners().contains(ownerUid)) {
        named = true;
      } else if (named) {
        return v.revision();
      }
    }
    return null;
  }

  /** The finalizers of the object's version stored at exactly this revision, or null if none is known. */
  synchronized List<String> finalizersAt(String etcdKey, long revision) {
    for (Version v : versions.getOrDefault(etcdKey, List.of())) {
      if (v.revision() == revision) {
        return v.meta().finalizers();
      }
    }
    return null;
  }

  /** Versions of the soak's kinds decoded, and values that could not be: both for the report. */
  synchronized long decoded() {
    return decoded;
  }

  synchronized long undecodable() {
    return undecodable;
  }

  /** When the soak saw the deletion (System.nanoTime), or null if not seen. */
  synchronized Long seenAt(String etcdKey) {
    return seenAt.get(etcdKey);
  }

  /**
   * When the soak saw the deletion, on the wall clock, or null if not seen: at most a watch
   * delivery (or, across an etcd restart, a reconnect) after the deletion itself.
   */
  synchronized Instant goneAt(String etcdKey) {
    return goneAt.get(etcdKey);
  }

  synchronized int reconnects() {
    return reconnects;
  }

  synchronized List<String> problems() {
    List<String> out = new ArrayList<>(problems);
    if (undecodable > 0) {
      out.add(undecodable + " stored versions of the soak's kinds could not be decoded (of " + (decoded + undecodable)
          + "): the order checks that read them (Orphan, no deletion under a live owner) may have missed something");
    }
    return out;
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    closed = true;
    InputStream in = current;
    if (in != null) {
      try {
        in.close();
      } catch (Exception ignored) {
        // closing a stream that etcd ended already
      }
    }
    reader.interrupt();
  }
}
