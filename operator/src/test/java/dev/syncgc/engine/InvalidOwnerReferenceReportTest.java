package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The InvalidOwnerReference Event is recorded for every reference the informer delivered, whatever
 * version a worker reads later. kube-controller-manager's collector removes a reference to an owner
 * in another namespace from a dependent that also has a solid owner within milliseconds (measured on
 * e2e/cluster.sh: 3-6 ms from the create to the PATCH); a worker that syncs the dependent after that
 * PATCH has arrived reads a version without the reference (InvalidInputIT's flake). The
 * engine is fed the watch events in that order before its workers start, so the outcome does not
 * depend on timing. Events go to a loopback HTTP server that records them.
 */
class InvalidOwnerReferenceReportTest {
  private static final TrackedKind WIDGET = new TrackedKind("test.syncgc.dev", "v1", "Widget", "widgets", true);
  private static final Duration WAIT = Duration.ofSeconds(5);

  private final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
  private HttpServer server;
  private KubernetesClient client;
  private EventRecorder recorder;
  private Engine engine;

  @BeforeEach
  void engine() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      boolean event = exchange.getRequestMethod().equals("POST") && exchange.getRequestURI().getPath().endsWith("/events");
      if (event) {
        events.add(body);
      }
      byte[] answer = (event ? body : "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(event ? 201 : 404, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    server.start();
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffLimit(0).build())
        .build();
    SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
    Discovery discovery = new Discovery(client, Duration.ofMinutes(10), Clock.systemUTC());
    discovery.learn(WIDGET);
    recorder = new EventRecorder(client, RateLimiter.unlimited(), metrics, Clock.systemUTC(), Duration.ofMinutes(5),
        "test");
    engine = new Engine(discovery, new EngineSettings(1, Set.of(), Duration.ofMinutes(1), Duration.ofSeconds(1),
        Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10), true, Duration.ofSeconds(5)),
        new KubeApi(client, RateLimiter.unlimited(), metrics), new KubeApi(client, RateLimiter.unlimited(), metrics),
        recorder, metrics, Clock.systemUTC(), ns -> Map.of());
  }

  @AfterEach
  void close() {
    engine.close();
    recorder.close();
    client.close();
    server.stop(0);
  }

  /** The usual order: the worker syncs the dependent while it still holds the reference. */
  @Test
  void referenceStillHeldWhenTheWorkerSyncsIsReported() {
    GenericKubernetesResource owner = widget("ns-a", "owner", 1);
    GenericKubernetesResource solid = widget("ns-b", "solid", 2);
    GenericKubernetesResource dependent = widget("ns-b", "dependent", 3, ref(owner), ref(solid));
    engine.upserted(WIDGET, meta(owner));
    engine.upserted(WIDGET, meta(solid));
    engine.upserted(WIDGET, meta(dependent));
    engine.startWorkers();

    assertReported(dependent, owner);
  }

  /** The order of that flake: owner, dependent with the reference, the collector's PATCH; then the worker. */
  @Test
  void referenceRemovedByTheBuiltInCollectorBeforeTheWorkerSyncsIsStillReported() {
    GenericKubernetesResource owner = widget("ns-a", "owner", 1);
    GenericKubernetesResource solid = widget("ns-b", "solid", 2);
    GenericKubernetesResource created = widget("ns-b", "dependent", 3, ref(owner), ref(solid));
    engine.upserted(WIDGET, meta(owner));
    engine.upserted(WIDGET, meta(solid));
    engine.upserted(WIDGET, meta(created));
    engine.upserted(WIDGET, meta(collectorRemovedReference(created, owner)));
    engine.startWorkers();

    assertReported(created, owner);
  }

  /**
   * The dependent seen before its owner (another informer, or the freshness check's LIST): the
   * owner is not known yet, so the reference cannot be judged; once the owner appears in another
   * namespace it is, even if the collector has removed the reference by the time a worker looks.
   */
  @Test
  void dependentSeenBeforeItsOwnerInAnotherNamespaceIsReportedWhenTheOwnerAppears() {
    GenericKubernetesResource owner = widget("ns-a", "owner", 2);
    GenericKubernetesResource solid = widget("ns-b", "solid", 1);
    GenericKubernetesResource created = widget("ns-b", "dependent", 3, ref(owner), ref(solid));
    engine.upserted(WIDGET, meta(solid));
    engine.upserted(WIDGET, meta(created));
    engine.upserted(WIDGET, meta(owner));
    engine.upserted(WIDGET, meta(collectorRemovedReference(created, owner)));
    engine.startWorkers();

    assertReported(created, owner);
  }

  /** A valid reference (same namespace) gets no Event, seen in either order. */
  @Test
  void validReferenceIsNotReported() throws InterruptedException {
    GenericKubernetesResource owner = widget("ns-b", "owner", 2);
    GenericKubernetesResource dependent = widget("ns-b", "dependent", 1, ref(owner));
    engine.upserted(WIDGET, meta(dependent));
    engine.upserted(WIDGET, meta(owner));
    engine.startWorkers();

    Thread.sleep(500);
    assertEquals(List.of(), List.copyOf(events));
  }

  private void assertReported(GenericKubernetesResource dependent, GenericKubernetesResource owner) {
    String uid = dependent.getMetadata().getUid();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<String> invalid = events.stream()
          .filter(e -> e.contains("\"InvalidOwnerReference\"") && e.contains(uid)).toList();
      if (!invalid.isEmpty()) {
        assertEquals(1, invalid.size(), "one Event: " + invalid);
        assertTrue(invalid.get(0).contains(owner.getMetadata().getUid()), invalid.get(0));
        assertTrue(invalid.get(0).contains("the owner lives in another namespace"), invalid.get(0));
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new AssertionError("no InvalidOwnerReference Event about " + dependent.getMetadata().getNamespace() + "/"
        + dependent.getMetadata().getName() + " within " + WAIT + "; Events recorded: " + events);
  }

  private static GenericKubernetesResource widget(String namespace, String name, long resourceVersion,
      OwnerReference... owners) {
    return new GenericKubernetesResourceBuilder().withApiVersion(WIDGET.apiVersion()).withKind("Widget")
        .withNewMetadata().withNamespace(namespace).withName(name).withUid(UUID.randomUUID().toString())
        .withResourceVersion(Long.toString(resourceVersion)).withOwnerReferences(owners).endMetadata()
        .build();
  }

  /** The dependent as kube-controller-manager's collector leaves it: the next version, without that reference. */
  private static GenericKubernetesResource collectorRemovedReference(GenericKubernetesResource dependent,
      GenericKubernetesResource owner) {
    return new GenericKubernetesResourceBuilder(dependent).editMetadata()
        .withResourceVersion(Long.toString(Long.parseLong(dependent.getMetadata().getResourceVersion()) + 10))
        .withOwnerReferences(dependent.getMetadata().getOwnerReferences().stream()
            .filter(r -> !r.getUid().equals(owner.getMetadata().getUid())).toList())
        .endMetadata().build();
  }

  private static OwnerReference ref(GenericKubernetesResource owner) {
    return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).build();
  }

  private static dev.syncgc.core.model.ObjectMetadata meta(GenericKubernetesResource object) {
    return new dev.syncgc.kube.MetadataReader().read(WIDGET, object);
  }
}
