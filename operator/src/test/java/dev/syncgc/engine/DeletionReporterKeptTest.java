package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Keep one dependent": SynchronousDeletionCompleted counts what the cascade kept, anywhere below
 * the owner the user deleted (the root of its cascade), and says nothing of keep when none was.
 */
class DeletionReporterKeptTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

  private final KubernetesClient client = new KubernetesClientBuilder()
      .withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build()).build();
  private final SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private final EventRecorder events = new EventRecorder(client, RateLimiter.unlimited(), metrics, clock,
      Duration.ofSeconds(30), "t");
  private final ObjectStates states = new ObjectStates();
  private final DeletionReporter reporter = new DeletionReporter(events, metrics, clock, Duration.ofSeconds(30),
      List::of, states);

  @AfterEach
  void close() {
    events.close();
    client.close();
  }

  @Test
  void keptDependentsAreCountedOnTheRootOfTheCascade() {
    ObjectMetadata root = object("root", Map.of());
    ObjectMetadata inner = object("inner", Map.of(Names.CASCADED_FROM, "root"));

    reporter.referenceDropped(object("k1", Map.of()), root, "root");
    reporter.referenceDropped(object("k2", Map.of()), inner, "root");
    reporter.referenceDropped(object("other", Map.of()), root, null); // kept by another owner: not counted

    assertEquals(2, reporter.kept("root"));
    assertEquals(0, reporter.kept("inner"));
  }

  @Test
  void theCompletionSaysHowManyWereKept() {
    assertEquals("All dependents are gone; released after 1.5s", DeletionReporter.completed("1.5s", 0, List.of()));
    assertEquals("All dependents are gone; released after 1.5s; 1 dependent kept (syncgc.dev/keep)",
        DeletionReporter.completed("1.5s", 1, List.of()));
    assertEquals("All dependents are gone; released after 2.0s; 100 dependents kept (syncgc.dev/keep);"
        + " not checked (syncgc cannot list them): [v1/Secret]", DeletionReporter.completed("2.0s", 100, List.of("v1/Secret")));
  }

  private static ObjectMetadata object(String uid, Map<String, String> annotations) {
    return new ObjectMetadata(new ObjectRef("v1", "ConfigMap", "ns", uid, uid), 1, List.of(), List.of(Names.FINALIZER),
        NOW.minusSeconds(1), null, annotations, Map.of());
  }

  @Test
  void theCountIsKeptOnARootTheGraphHolds() {
    var graph = dev.syncgc.core.TestObjects.graph();
    String uid = java.util.UUID.randomUUID().toString();
    ObjectMetadata root = object(uid, Map.of());
    graph.upsert(root);
    ObjectStates tracked = new ObjectStates(u -> graph.get(u) != null);
    DeletionReporter r = new DeletionReporter(events, metrics, clock, Duration.ofSeconds(30), List::of, tracked);

    r.referenceDropped(object("k", Map.of()), root, uid);

    assertEquals(1, r.kept(uid));
  }

  @Test
  void noCountWithoutAKeptDependent() {
    assertNull(states.peek("nobody"));
    assertEquals(0, reporter.kept("nobody"));
  }
}
