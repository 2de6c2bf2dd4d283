package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.core.deletion.Step;
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
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WaitingForDependents on the deletion a user asked for comes after a moment; on an owner a cascade put
 * under deletion only once it has waited a whole interval: in a cascade that makes progress those
 * Events were most of its requests beyond SPEC's minimum (778 in the 11,111-object tree), while a
 * dependent stuck deep in a tree still names what holds it.
 */
class DeletionReporterWaitingTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private static final Duration INTERVAL = Duration.ofSeconds(30);

  private final KubernetesClient client = new KubernetesClientBuilder()
      .withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build()).build();
  private final SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private final EventRecorder events = new EventRecorder(client, RateLimiter.unlimited(), metrics, clock, INTERVAL, "t");
  private final ObjectStates states = new ObjectStates();
  private final DeletionReporter reporter = new DeletionReporter(events, metrics, clock, INTERVAL, List::of, states);

  @AfterEach
  void close() {
    events.close();
    client.close();
  }

  @Test
  void theRootReportsAfterAMoment() {
    ObjectMetadata root = owner(Duration.ofSeconds(5), Map.of());
    reporter.waiting(root, waitFor());
    assertNotNull(states.of(root.uid()).lastWaitingEvent, "an Event after 5 s");
  }

  @Test
  void anOwnerACascadeDeletesReportsOnlyAfterAWholeInterval() {
    ObjectMetadata inner = owner(Duration.ofSeconds(5), Map.of(Names.CASCADED_FROM, UUID.randomUUID().toString()));
    reporter.waiting(inner, waitFor());
    assertNull(states.of(inner.uid()).lastWaitingEvent, "no Event after 5 s in a cascade");

    ObjectMetadata stuck = owner(INTERVAL.plusSeconds(1), Map.of(Names.CASCADED_FROM, UUID.randomUUID().toString()));
    reporter.waiting(stuck, waitFor());
    assertNotNull(states.of(stuck.uid()).lastWaitingEvent, "an Event once it waited a whole interval");
  }

  private static Step.Wait waitFor() {
    return new Step.Wait(List.of(), 1, NOW.plus(Duration.ofMinutes(10)));
  }

  private static ObjectMetadata owner(Duration deletedAgo, Map<String, String> annotations) {
    return new ObjectMetadata(new ObjectRef("v1", "ConfigMap", "ns", "o", UUID.randomUUID().toString()), 1,
        List.of(), List.of(Names.FINALIZER), NOW.minus(deletedAgo), null, annotations, Map.of());
  }
}
