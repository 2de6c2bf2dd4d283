package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TcpRelay;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code /healthz} reflects health: an operator wedged on purpose (its workers held by a test hook,
 * or its watches cut off from the API server by a relay this test closes) fails it once the
 * threshold has passed, and passes again when it recovers. Thresholds are seconds here (minutes by
 * default). On kind the kubelet then restarts the Pod; here there is no kubelet, so the test reads
 * /healthz as the probe does. The shared operator is paused meanwhile (one operator at a time).
 */
@ExtendWith(TestNamespace.Extension.class)
class LivenessIT {
  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void oneOperatorAtATime() {
    SharedOperator.pause();
  }

  @AfterAll
  static void resume() {
    SharedOperator.resume();
  }

  @Test
  void workersHeldWithWorkQueuedFailHealthzAfterTheThresholdAndPassAgainWhenTheyGoOn(TestNamespace ns)
      throws Exception {
    Path wedge = TestCluster.targetDir().resolve("liveness-wedge-" + ns.name());
    Files.deleteIfExists(wedge);
    try (OperatorProcess operator = OperatorProcess.start("liveness-workers",
        List.of("--workers", "1", "--liveness-stall-timeout", THRESHOLD.toSeconds() + "s"),
        Map.of("SYNCGC_TEST_WEDGE_WORKERS_FILE", wedge.toString()))) {
      operator.awaitReady();
      assertEquals(200, operator.status("/healthz"));

      // no sync finishes after this but the ones in progress: /healthz may fail THRESHOLD after it at the earliest
      long wedged = System.nanoTime();
      Files.writeString(wedge, "LivenessIT: workers held until this file is deleted");
      for (int i = 0; i < 5; i++) { // the one worker holds one; the others wait in the queue
        client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
            .withName("opted-in-" + i).addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build()).create();
      }
      await("/healthz fails").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
          .until(() -> operator.status("/healthz") == 503);
      Duration took = Duration.ofNanos(System.nanoTime() - wedged);
      assertTrue(took.compareTo(THRESHOLD) >= 0, "not before the threshold: " + took);
      HttpResponse<String> failing = operator.get("/healthz");
      assertTrue(failing.body().contains("the workers made no progress") && failing.body().contains("objects wait"),
          failing.body());
      operator.awaitLog("liveness: failing");
      assertEquals(200, operator.status("/readyz"), "liveness, not readiness: the Pod is restarted, not unlisted");

      Files.delete(wedge);
      await("/healthz passes again").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
          .until(() -> operator.status("/healthz") == 200);
      for (int i = 0; i < 5; i++) {
        String name = "opted-in-" + i;
        await(name + " gets the finalizer").atMost(DEADLINE).until(() -> ObjectAwaits.hasFinalizer(
            client.configMaps().inNamespace(ns.name()).withName(name).get(), FINALIZER));
      }
    } finally {
      Files.deleteIfExists(wedge);
    }
  }

  @Test
  void watchesCutOffFromTheApiServerFailHealthzAfterTheThresholdAndPassAgainOnceReconnected() throws Exception {
    String kubeconfig = Files.readString(TestCluster.get().kubeconfig());
    Matcher server = Pattern.compile("server: https://127\\.0\\.0\\.1:(\\d+)").matcher(kubeconfig);
    assertTrue(server.find(), "the local control plane's kubeconfig names a loopback server");
    try (TcpRelay relay = new TcpRelay(Integer.parseInt(server.group(1)))) {
      Path relayed = TestCluster.targetDir().resolve("liveness-relay.kubeconfig");
      Files.writeString(relayed, server.replaceAll("server: https://127.0.0.1:" + relay.port()));
      try (OperatorProcess operator = OperatorProcess.start("liveness-watches",
          List.of("--liveness-watch-timeout", THRESHOLD.toSeconds() + "s"), Map.of("KUBECONFIG", relayed.toString()))) {
        operator.awaitReady();
        assertEquals(200, operator.status("/healthz"));

        relay.cut(); // every connection to the API server closed, new ones refused
        long cut = System.nanoTime();
        await("/healthz fails").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
            .until(() -> operator.status("/healthz") == 503);
        Duration took = Duration.ofNanos(System.nanoTime() - cut);
        assertTrue(took.compareTo(THRESHOLD) >= 0, "not before the threshold: " + took);
        String body = operator.get("/healthz").body();
        assertTrue(body.contains("watches has run for"), body);

        relay.restore();
        await("/healthz passes again once a watch runs").atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(500)).until(() -> operator.status("/healthz") == 200);
      }
    }
  }
}
