package dev.syncgc.kube;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * within {@code dedupeWindow} is sent once. An Event refused with 429 is sent again after a backoff
 * (see {@link TooManyRequests}), on the sender's thread.
 */
public final class EventRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final int MAX_MESSAGE = 1024;

  public enum Type { Normal, Warning }

  private final KubernetesClient client;
  private final RateLimiter limiter;
  private final SyncgcMetrics metrics;
  private final Clock clock;
  private final Duration dedupeWindow;
  private final String instance;
  private final Map<String, Instant> recent = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor sender = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(10_000), r -> {
        Thread t = new Thread(r, "events");
        t.setDaemon(true);
        return t;
      }, new ThreadPoolExecutor.DiscardPolicy());

  public EventRecorder(KubernetesClient client, RateLimiter limiter, SyncgcMetrics metrics, Clock clock,
      Duration dedupeWindow, String instance) {
    this.client = client;
    this.limiter = limiter;
    this.metrics = metrics;
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
    String key = on.uid() + '\n' + reason + '\n' + message;
    Instant last = recent.get(key);
    if (last != null && Duration.between(last, now).compareTo(dedupeWindow) < 0) {
      return;
    }
    recent.put(key, now);
    if (recent.size() > 50_000) {
      recent.values().removeIf(t -> Duration.between(t, now).compareTo(dedupeWindow) >= 0);
    }
    sender.execute(() -> send(on, type, reason, message, now));
  }

  private void send(ObjectRef on, Type type, String reason, String message, Instant now) {
    String namespace = on.namespace() == null ? "default" : on.namespace();
    String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE - 3) + "..." : message;
    Event event = new EventBuilder()
        .withNewMetadata().withGenerateName(on.name() + ".").withNamespace(namespace).endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(on.apiVersion())
            .withKind(on.kind()).withNamespace(on.namespace()).withName(on.name())
            .withUid(on.uid()).build())
        .withType(type.name()).withReason(reason).withMessage(text)
        .withNewSource().withComponent(Names.COMPONENT).endSource()
        .withReportingComponent(Names.COMPONENT).withReportingInstance(instance)
        .withFirstTimestamp(now.toString()).withLastTimestamp(now.toString()).withCount(1)
        .build();
    Duration waited = Duration.ZERO;
    for (int retry = 1; ; retry++) {
      limiter.acquire();
      try {
        client.v1().events().inNamespace(namespace).resource(event).create();
        metrics.apiRequest("create", 201);
        return;
      } catch (KubernetesClientException e) {
        metrics.apiRequest("create", e.getCode());
        // throttled (429): on this background thread, wait and send again; the header is not at hand
        Duration wait = e.getCode() == TooManyRequests.CODE ? TooManyRequests.waitBefore(retry, null, waited) : null;
        if (wait == null || !pause(wait)) {
          log.warn("event not recorded object={} reason={} code={} message={}", on, reason, e.getCode(),
              e.getMessage());
          return;
        }
        waited = waited.plus(wait);
      }
    }
  }

  private static boolean pause(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    sender.shutdown();
  }
}
