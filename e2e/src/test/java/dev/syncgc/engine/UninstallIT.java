package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.uninstall.Uninstall;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The uninstall release (the chart's pre-delete hook) against the real API server and the built-in
 * collector: only syncgc's finalizer goes, other controllers' finalizers and other fields stay, and
 * a Synchronous object already being deleted is handed to foreground deletion, so its dependents still
 * go first (ReleaseIT: Orphan owners and kinds the operator does not track).
 */
@ExtendWith(TestNamespace.Extension.class)
class UninstallIT {
  private static final String KEEP = "example.com/keep";
  private static final String OTHER = "example.com/other";

  private final KubernetesClient client = TestCluster.get().client();
  private final EdgeObjects objects = new EdgeObjects(client);

  /** The release runs with the operator stopped (else it would put the finalizers back). */
  @BeforeAll
  static void operatorStopped() {
    SharedOperator.pause();
  }

  @AfterEach
  void cleanUp() {
    objects.releaseAll();
  }

  /**
   * The built-in collector watches ConfigMaps through one informer, in order: once it has deleted
   * the dependent of a probe created after everything else, its graph holds everything else too.
   * (A foreground deletion it handles before it saw a dependent finishes without that dependent,
   * which then stays for as long as another finalizer holds the owner.)
   */
  private void collectorHasSeenEverythingCreatedSoFar(String namespace) {
    ConfigMap probe = objects.create(namespace, "gc-probe", List.of(), List.of());
    objects.create(namespace, "gc-probe-dependent", List.of(objects.ref(probe)), List.of());
    client.configMaps().inNamespace(namespace).withName("gc-probe").delete();
    Awaitility.await("the built-in collector deletes the probe's dependent").atMost(Duration.ofSeconds(60))
        .until(() -> objects.get(namespace, "gc-probe-dependent") == null);
  }

  @Test
  void onlyTheSyncgcFinalizerGoesAndASynchronousObjectUnderDeletionIsHandedToForegroundDeletion(TestNamespace ns) {
    objects.create(ns.name(), "live", List.of(), List.of(KEEP, Names.FINALIZER, OTHER));
    client.configMaps().inNamespace(ns.name()).withName("live").edit(c -> {
      c.getMetadata().setLabels(Map.of("changed", "by-someone-else"));
      return c;
    });
    ConfigMap owner = objects.create(ns.name(), "owner", List.of(), List.of(KEEP, Names.FINALIZER));
    client.configMaps().inNamespace(ns.name()).withName("owner").edit(c -> {
      c.getMetadata().setAnnotations(Map.of(Names.PROPAGATION, "Synchronous"));
      return c;
    });
    // blockOwnerDeletion, as controllers set it: the built-in collector's foreground deletion promises
    // order only for blocking dependents (docs/usage.md, Uninstall). A non-blocking one stays for as long as
    // another finalizer holds the owner whenever the collector's worker for the owner removes
    // foregroundDeletion before its worker for the dependent read the owner (processDeletingDependentsItem):
    // without this flag the test failed in CI once, the child still there after 60 s
    objects.create(ns.name(), "child", List.of(objects.ref(owner)), List.of(), true);
    collectorHasSeenEverythingCreatedSoFar(ns.name());
    client.configMaps().inNamespace(ns.name()).withName("owner").delete();
    Awaitility.await().until(() -> objects.get(ns.name(), "owner").getMetadata().getDeletionTimestamp() != null);

    SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
    KubeApi api = new KubeApi(client, new RateLimiter(1000, 1000), metrics);
    Uninstall.Summary summary = new Uninstall(client, api).run();

    assertEquals(0, summary.failed(), summary.toString());
    assertEquals(List.of(), summary.notListed(), "the test cluster's admin lists every kind");
    assertTrue(summary.released() >= 1 && summary.handedOver() >= 1, summary.toString());
    ObjectMetadata live = objects.read(ns.name(), "live");
    assertEquals(List.of(KEEP, OTHER), live.finalizers(), "the other controllers' finalizers stay, in order");
    assertEquals(Map.of("changed", "by-someone-else"), live.labels());
    assertTrue(!live.beingDeleted(), "a live object is only released, never deleted");

    // without the hand-over the child would stay as long as the other finalizer holds the owner:
    // the built-in collector deletes dependents of an owner under deletion only in the foreground
    Awaitility.await("the built-in collector deletes the dependent before the owner")
        .atMost(Duration.ofSeconds(60)).until(() -> objects.get(ns.name(), "child") == null);
    ConfigMap held = objects.get(ns.name(), "owner");
    assertNotNull(held, "still held by the other controller's finalizer");
    assertEquals(List.of(KEEP), held.getMetadata().getFinalizers().stream()
        .filter(f -> !f.equals("foregroundDeletion")).toList(), "only syncgc's finalizer went");
  }

  /**
   * SPEC "Keep one dependent" in the release: foreground deletion, which the release hands a Synchronous
   * owner under deletion to, deletes every dependent; a kept one loses its reference to the owner first
   * and stays.
   */
  @Test
  void aKeptDependentOfAnOwnerHandedToForegroundDeletionLosesItsReferenceFirstAndStays(TestNamespace ns) {
    ConfigMap owner = objects.create(ns.name(), "owner", List.of(), List.of(KEEP, Names.FINALIZER));
    client.configMaps().inNamespace(ns.name()).withName("owner").edit(c -> {
      c.getMetadata().setAnnotations(Map.of(Names.PROPAGATION, "Synchronous"));
      return c;
    });
    objects.create(ns.name(), "child", List.of(objects.ref(owner)), List.of(), true);
    objects.create(ns.name(), "kept", List.of(objects.ref(owner)), List.of(), true);
    client.configMaps().inNamespace(ns.name()).withName("kept").edit(c -> {
      c.getMetadata().setAnnotations(Map.of(Names.KEEP, "true"));
      return c;
    });
    collectorHasSeenEverythingCreatedSoFar(ns.name());
    client.configMaps().inNamespace(ns.name()).withName("owner").delete();
    Awaitility.await().until(() -> objects.get(ns.name(), "owner").getMetadata().getDeletionTimestamp() != null);

    KubeApi api = new KubeApi(client, new RateLimiter(1000, 1000), new SyncgcMetrics(new SimpleMeterRegistry()));
    Uninstall.Summary summary = new Uninstall(client, api).run();

    assertEquals(0, summary.failed(), summary.toString());
    Awaitility.await("the built-in collector deletes the other dependent").atMost(Duration.ofSeconds(60))
        .until(() -> objects.get(ns.name(), "child") == null);
    Awaitility.await("the kept one stays").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
        .until(() -> objects.get(ns.name(), "kept") != null);
    assertEquals(List.of(), objects.get(ns.name(), "kept").getMetadata().getOwnerReferences());
  }

  /** The patch the release sends, on a view another writer changed since: refused, nothing lost. */
  @Test
  void theReleasePatchOnAStaleViewIsRefusedAndKeepsTheOtherWritersChange(TestNamespace ns) {
    ObjectMetadata seen = objects.read(objects.create(ns.name(), "moved", List.of(), List.of(KEEP, Names.FINALIZER)));
    client.configMaps().inNamespace(ns.name()).withName("moved").edit(c -> {
      c.getMetadata().setFinalizers(List.of(Names.FINALIZER, OTHER)); // KEEP went, OTHER came
      return c;
    });
    KubeApi api = new KubeApi(client, new RateLimiter(1000, 1000), new SyncgcMetrics(new SimpleMeterRegistry()));

    ApiResult r = new ObjectWrites(api).removeFinalizer(EngineParts.CONFIG_MAP, seen.ref(), seen.finalizers(),
        Names.FINALIZER);

    assertTrue(r.conflict(), r.code() + " " + r.body());
    assertEquals(List.of(Names.FINALIZER, OTHER), objects.finalizers(ns.name(), "moved"));
  }
}
