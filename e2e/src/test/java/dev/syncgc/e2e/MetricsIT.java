package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.RunningOperator;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the shared operator serves on its HTTP port: Prometheus metrics and the probes. */
@ExtendWith(TestNamespace.Extension.class)
class MetricsIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String OLDEST_AGE = "syncgc_deletions_oldest_age_seconds";
  /** A Java Operator SDK gauge registered with the GarbageCollectionPolicy controller at start. */
  private static final String JOSDK_METRIC = "operator_sdk_reconciliations_executions_garbagecollectionpolicy";

  private final KubernetesClient client = TestCluster.get().client();
  private static RunningOperator operator;

  @BeforeAll
  static void operator() {
    operator = SharedOperator.get();
  }

  @Test
  void synchronousDeletionTimeoutAndCycleAreCountedInTheSyncgcMetrics(TestNamespace ns) {
    Metrics before = Metrics.parse(operator.metrics());
    String held = "held-dependent";
    try {
      // 1. a synchronous deletion that completes: owner and dependent
      GenericKubernetesResource owner =
          Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
      Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();
      Widgets.widget(client, ns.name(), "owner").delete();

      // 2. one that times out: its dependent is held by another controller's finalizer
      GenericKubernetesResource slow = Widgets.create(client, ns.name(), "slow-owner").synchronous()
          .annotate(TIMEOUT, "5s").applyAndAwaitFinalizer();
      Widgets.create(client, ns.name(), held).ownedBy(slow).finalizer(HOLD).apply();
      Widgets.widget(client, ns.name(), "slow-owner").delete();

      // 3. a two-object cycle: a owned by b, b owned by a, both Synchronous
      GenericKubernetesResource a =
          Widgets.create(client, ns.name(), "cycle-a").synchronous().applyAndAwaitFinalizer();
      GenericKubernetesResource b = Widgets.create(client, ns.name(), "cycle-b").ownedBy(a)
          .synchronous().apply();
      Widgets.widget(client, ns.name(), "cycle-a").patch(PatchContext.of(PatchType.JSON_MERGE),
          Serialization.asJson(Map.of("metadata", Map.of("ownerReferences", List.of(Widgets.ownerReference(b))))));
      ObjectAwaits.awaitSyncgcFinalizer(() -> Widgets.widget(client, ns.name(), "cycle-b").get());
      Widgets.widget(client, ns.name(), "cycle-a").delete();

      await("owner and dependent gone").atMost(DEADLINE).until(() -> gone(ns, "owner") && gone(ns, "dependent"));
      Events.await(client, slow, "SynchronousDeletionTimedOut");
      await("slow-owner gone after its timeout").atMost(DEADLINE).until(() -> gone(ns, "slow-owner"));
      await("cycle gone").atMost(DEADLINE).until(() -> gone(ns, "cycle-a") && gone(ns, "cycle-b"));
      Events.await(client, a, "DependencyCycle");

      // counters are incremented when the finalizer goes: poll until every one shows it
      AtomicReference<Metrics> after = new AtomicReference<>();
      try {
        await("syncgc counters grew").atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
          Metrics m = Metrics.parse(operator.metrics());
          after.set(m);
          return growth(before, m, "syncgc_deletions_started_total", Map.of()) >= 3
              && growth(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "completed")) >= 1
              && growth(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "timed_out")) >= 1
              && growth(before, m, "syncgc_cycles_found_total", Map.of()) >= 1
              && growth(before, m, "syncgc_deletion_duration_seconds_count", Map.of()) >= 1;
        });
      } catch (RuntimeException e) {
        // fall through to the individual assertions, which say which counter did not grow
      }
      Metrics m = after.get();
      assertTrue(growth(before, m, "syncgc_deletions_started_total", Map.of()) >= 3,
          describe(before, m, "syncgc_deletions_started_total", Map.of()));
      assertTrue(growth(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "completed")) >= 1,
          describe(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "completed")));
      assertTrue(growth(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "timed_out")) >= 1,
          describe(before, m, "syncgc_deletions_finished_total", Map.of("outcome", "timed_out")));
      assertTrue(growth(before, m, "syncgc_cycles_found_total", Map.of()) >= 1,
          describe(before, m, "syncgc_cycles_found_total", Map.of()));
      assertTrue(growth(before, m, "syncgc_deletion_duration_seconds_count", Map.of()) >= 1,
          describe(before, m, "syncgc_deletion_duration_seconds_count", Map.of()));
      assertTrue(m.sum("syncgc_api_requests_total", Map.of("code", "200", "verb", "delete")).isPresent(),
          "syncgc_api_requests_total{code=\"200\",verb=\"delete\"} present; api requests: "
              + m.lines("syncgc_api_requests_total"));
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), held), HOLD);
    }
  }

  /**
   * Only the deletion a user asked for is counted, once: not the owners inside its tree that syncgc
   * put under deletion itself. A deletion switched to Background mid-way ends as handed_over, not as
   * completed. An operator of its own, watching only this namespace, makes the counts exact.
   */
  @Test
  void eachUserDeletionIsCountedOnceStartedAndOnceFinishedWithItsOutcome(TestNamespace ns) {
    SharedOperator.pause();
    try (OperatorProcess own = OperatorProcess.startReady("metrics-counting", "--namespaces", ns.name())) {
      GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous()
          .applyAndAwaitFinalizer();
      GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(root).apply();
      Widgets.create(client, ns.name(), "leaf").ownedBy(mid).apply();
      GenericKubernetesResource switched = Widgets.create(client, ns.name(), "switched").synchronous()
          .applyAndAwaitFinalizer();
      Widgets.create(client, ns.name(), "held").ownedBy(switched).finalizer(HOLD).apply();

      Widgets.widget(client, ns.name(), "root").delete();
      Widgets.widget(client, ns.name(), "switched").delete();
      await("root's tree gone").atMost(DEADLINE).until(() -> gone(ns, "root") && gone(ns, "mid") && gone(ns, "leaf"));
      Events.await(client, switched, "SynchronousDeletionStarted");
      Widgets.widget(client, ns.name(), "switched").edit(w -> {
        w.getMetadata().getAnnotations().put(PROPAGATION, "Background");
        return w;
      });
      await("switched owner handed over").atMost(DEADLINE).until(() -> gone(ns, "switched"));
      Events.await(client, switched, "SynchronousDeletionHandedOver");

      AtomicReference<Metrics> last = new AtomicReference<>();
      await("finished counted").atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
        last.set(Metrics.parse(own.metrics()));
        return last.get().sum("syncgc_deletions_finished_total", Map.of("outcome", "handed_over")).orElse(0) >= 1;
      });
      Metrics m = last.get();
      assertEquals(2.0, m.sum("syncgc_deletions_started_total", Map.of()).orElse(0), m.lines("syncgc_deletions_started_total").toString());
      assertEquals(1.0, m.sum("syncgc_deletions_finished_total", Map.of("outcome", "completed")).orElse(0),
          "the root only, not mid: " + m.lines("syncgc_deletions_finished_total"));
      assertEquals(1.0, m.sum("syncgc_deletions_finished_total", Map.of("outcome", "handed_over")).orElse(0),
          m.lines("syncgc_deletions_finished_total").toString());
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      SharedOperator.resume();
    }
  }

  /**
   * syncgc_deletions_oldest_age_seconds is exported from the start (0: nothing in progress), is the
   * time since the deletionTimestamp of the owner syncgc holds while another controller's finalizer
   * keeps its dependent, and drops back to 0 once that owner is gone. An operator of its own,
   * watching only this namespace, holds no other deletion.
   */
  @Test
  void oldestDeletionAgeCountsFromTheOwnersDeletionTimestamp(TestNamespace ns) {
    SharedOperator.pause();
    try (OperatorProcess own = OperatorProcess.startReady("metrics-oldest-age", "--namespaces", ns.name())) {
      assertEquals(0.0, Metrics.parse(own.metrics()).sum(OLDEST_AGE, Map.of()).orElse(-1), OLDEST_AGE + " at start");
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "stuck-owner").synchronous()
          .applyAndAwaitFinalizer();
      Widgets.create(client, ns.name(), "held").ownedBy(owner).finalizer(HOLD).apply();
      Widgets.widget(client, ns.name(), "stuck-owner").delete();
      Events.await(client, owner, "SynchronousDeletionStarted");
      Instant deletedAt = Instant.parse(Widgets.widget(client, ns.name(), "stuck-owner").get().getMetadata()
          .getDeletionTimestamp());

      await(OLDEST_AGE + " >= 3").atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
        Instant before = Instant.now();
        double seconds = Metrics.parse(own.metrics()).sum(OLDEST_AGE, Map.of()).orElse(-1);
        double since = Duration.between(deletedAt, Instant.now()).toMillis() / 1000.0;
        // the operator reads the same deletionTimestamp: the age is the one at the moment of the scrape
        assertTrue(seconds >= Duration.between(deletedAt, before).toMillis() / 1000.0 - 0.5 && seconds <= since + 0.5,
            OLDEST_AGE + " " + seconds + " is the time since the deletionTimestamp " + deletedAt + ", " + since + " s");
        return seconds >= 3;
      });

      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      await("stuck-owner gone").atMost(DEADLINE).until(() -> gone(ns, "stuck-owner"));
      await(OLDEST_AGE + " back to 0").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
          .until(() -> Metrics.parse(own.metrics()).sum(OLDEST_AGE, Map.of()).orElse(-1) == 0);
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      SharedOperator.resume();
    }
  }

  @Test
  void graphObjectsGaugeIsPositive(TestNamespace ns) {
    Widgets.create(client, ns.name(), "tracked").apply();
    AtomicReference<OptionalDouble> graph = new AtomicReference<>(OptionalDouble.empty());
    try {
      await("syncgc_graph_objects > 0").atMost(DEADLINE).pollInterval(Duration.ofMillis(250)).until(() -> {
        graph.set(Metrics.parse(operator.metrics()).sum("syncgc_graph_objects", Map.of()));
        return graph.get().orElse(0) > 0;
      });
    } catch (RuntimeException e) {
      throw new AssertionError("syncgc_graph_objects not > 0: " + graph.get(), e);
    }
  }

  @Test
  void jvmAndJavaOperatorSdkMetricsAreExposed() {
    // /readyz turns ready once the graph is built; Java Operator SDK starts right after, so its
    // meters may show up a moment later than the operator's readiness
    AtomicReference<Metrics> last = new AtomicReference<>();
    try {
      await("JVM and Java Operator SDK metrics").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
          .until(() -> {
            Metrics m = Metrics.parse(operator.metrics());
            last.set(m);
            return m.sum("jvm_memory_used_bytes", Map.of()).isPresent()
                && m.sum(JOSDK_METRIC, Map.of("kind", "GarbageCollectionPolicy")).isPresent();
          });
    } catch (RuntimeException e) {
      // the assertions below say which is missing
    }
    Metrics m = last.get();
    assertTrue(m.sum("jvm_memory_used_bytes", Map.of()).orElse(0) > 0,
        "jvm_memory_used_bytes: " + m.lines("jvm_memory_used_bytes"));
    assertTrue(m.sum(JOSDK_METRIC, Map.of("kind", "GarbageCollectionPolicy")).isPresent(),
        JOSDK_METRIC + " present; operator_sdk metrics: " + m.namesStartingWith("operator_sdk"));
    // the name Prometheus' process collector (and kube-controller-manager) uses, for one query across both
    assertTrue(m.sum("process_cpu_seconds_total", Map.of()).orElse(0) > 0,
        "process_cpu_seconds_total: " + m.namesStartingWith("process_"));
  }

  @Test
  void healthAndReadinessProbesAnswer200() {
    assertEquals(200, operator.status("/healthz"), "/healthz");
    assertEquals(200, operator.status("/readyz"), "/readyz");
  }

  // --- helpers

  private boolean gone(TestNamespace ns, String name) {
    return Widgets.widget(client, ns.name(), name).get() == null;
  }

  private static double growth(Metrics before, Metrics after, String name, Map<String, String> labels) {
    if (after == null) {
      return Double.NaN;
    }
    return after.sum(name, labels).orElse(0) - before.sum(name, labels).orElse(0);
  }

  private static String describe(Metrics before, Metrics after, String name, Map<String, String> labels) {
    return name + labels + " should have grown: before " + before.lines(name) + ", after "
        + (after == null ? "(no scrape)" : after.lines(name));
  }
}
