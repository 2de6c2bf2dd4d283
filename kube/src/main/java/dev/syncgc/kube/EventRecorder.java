package dev.syncgc.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.ObjectRef;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Kubernetes Events (core/v1, source component {@code syncgc}) on the objects syncgc acts on.
 * Sent in the background so that no worker waits for them; an identical Event on the same object
 * within {@code dedupeWindow} is sent once. Aggregated as client-go's recorder does: an identical
 * Event (same object, type, reason and message) later adds one to the {@code count} of the Event
 * object written first and moves its {@code lastTimestamp} (a PATCH), rather than writing another
 * object; one the API server has deleted since (its {@code --event-ttl}) is written anew. An Event
 * refused with 429 is sent again after the server's Retry-After ({@link KubeApi}), on the sender's thread.
 */
public final class EventRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final int MAX_MESSAGE = 1024;

  public enum Type { Normal, Warning }

  private final KubeApi api;
  private final Clock clock;
  private final Duration dedupeWindow;
  private final String instance;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One Event object: when it was last recorded, its name once written, and how often it was sent. */
  private static final class Series {
    private volatile Instant last;
    private String name;
    private int count;
  }

  /** By object, type, reason and message. */
  private final Map<String, Series> recent = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor sender = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(10_000), r -> {
        Thread t = new Thread(r, "events");
        t.setDaemon(true);
        return t;
      }, new ThreadPoolExecutor.DiscardPolicy());

  public EventRecorder(KubernetesClient client, RateLimiter limiter, CallCounts metrics, Clock clock,
      Duration dedupeWindow, String instance) {
    this.api = new KubeApi(client, limiter, metrics);
    this.clock = clock;
    this.dedupeWindow = dedupeWindow;
    this.instance = instance;
  }

  public void normal(ObjectRef on, EventReason reason, String message) {
    record(on, Type.Normal, reason.name(), message);
  }

  public void warning(ObjectRef on, EventReason reason, String message) {
    record(on, Type.Warning, reason.name(), message);
  }

  private void record(ObjectRef on, Type type, String reason, String message) {
    Instant now = clock.instant();
    Series series = recent.computeIfAbsent(on.uid() + '\n' + type + '\n' + reason + '\n' + message, k -> new Series());
    synchronized (series) {
      if (series.last != null && Duration.between(series.last, now).compareTo(dedupeWindow) < 0) {
        return;
      }
      series.last = now;
    }
    if (recent.size() > 50_000) {
      recent.values().removeIf(s -> s.last != null && Duration.between(s.last, now).compareTo(dedupeWindow) >= 0);
    }
    sender.execute(() -> send(on, type, reason, message, now, series));
  }

  /** One Event at a time per series: a repeat waits for the first's name, then counts on it. */
  private void send(ObjectRef on, Type type, String reason, String message, Instant now, Series series) {
    String namespace = on.namespace() == null ? "default" : on.namespace();
    synchronized (series) {
      if (series.name != null) {
        ApiResult result = api.patch("/api/v1/namespaces/" + namespace + "/events/" + series.name,
            KubeApi.MERGE_PATCH, KubeApi.json(Map.of("count", series.count + 1, "lastTimestamp", now.toString())));
        if (result.ok()) {
          series.count++;
          return;
        }
        if (!result.gone()) {
          notRecorded(on, reason, result);
          return;
        }
      }
      ApiResult result = create(on, type, reason, message, now, namespace);
      series.name = result.ok() ? nameIn(result) : null;
      series.count = 1;
    }
  }

  private static String nameIn(ApiResult result) {
    try {
      String name = JSON.readTree(result.body()).path("metadata").path("name").asText("");
      return name.isEmpty() ? null : name;
    } catch (Exception e) {
      return null; // the next repeat writes another object
    }
  }

  private static void notRecorded(ObjectRef on, String reason, ApiResult result) {
    log.warn("event not recorded object={} reason={} code={} message={}", on, reason, result.code(),
        result.body() == null ? "" : result.body().lines().findFirst().orElse(""));
  }

  private ApiResult create(ObjectRef on, Type type, String reason, String message, Instant now, String namespace) {
    String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 3) + "..." : message;
    Map<String, Object> involved = new LinkedHashMap<>();
    involved.put("apiVersion", on.apiVersion());
    involved.put("kind", on.kind());
    if (on.namespace() != null) {
      involved.put("namespace", on.namespace());
    }
    involved.put("name", on.name());
    involved.put("uid", on.uid());
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("apiVersion", "v1");
    event.put("kind", "Event");
    event.put("metadata", Map.of("generateName", on.name() + ".", "namespace", namespace));
    event.put("involvedObject", involved);
    event.put("type", type.name());
    event.put("reason", reason);
    event.put("message", text);
    event.put("source", Map.of("component", Names.COMPONENT));
    event.put("reportingComponent", Names.COMPONENT);
    event.put("reportingInstance", instance);
    event.put("firstTimestamp", now.toString());
    event.put("lastTimestamp", now.toString());
    event.put("count", 1);
    // through the thin HTTP path, as DELETEs go: Fabric8's DSL builds each URL with regular expressions and
    // reads the answer into an Event, a measurable share of the operator's CPU when Events are many
    // (docs/benchmarks.md, "In use"); 429 is sent again after the server's Retry-After there
    ApiResult result = api.create("/api/v1/namespaces/" + namespace + "/events", KubeApi.json(event));
    if (!result.ok()) {
      notRecorded(on, reason, result);
    }
    return result;
  }

  @Override
  public void close() {
    sender.shutdown();
  }
}
