package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.ORPHAN;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * syncgc next to the built-in garbage collector, the namespace controller, kubectl and helm: Orphan
 * propagation, every kubectl cascade mode, namespace deletion and helm uninstall all work on opted-in
 * objects and never deadlock.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class CoexistenceIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** The built-in collector may first have to discover the test CRDs (periodic, every 30 s). */
  private static final Duration BUILT_IN_GC_DEADLINE = Duration.ofSeconds(120);
  private static final Duration SURVIVAL = Duration.ofSeconds(3);

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void orphanPropagationKeepsDependentsAndRemovesOnlyTheOwnersReference(TestNamespace ns) {
    BuiltInCollector.assumeRunning("Orphan hands the dependents to the API server's orphaning (the orphan"
        + " finalizer), which only the collector completes");
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner")
        .annotate(PROPAGATION, ORPHAN).applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource other = Widgets.create(client, ns.name(), "other").apply();
    GenericKubernetesResource shared = Widgets.create(client, ns.name(), "shared")
        .ownedBy(other).ownedBy(owner).apply();
    GenericKubernetesResource only = Widgets.create(client, ns.name(), "only").ownedBy(owner).apply();
    GenericKubernetesResource grandchild = Widgets.create(client, ns.name(), "grandchild")
        .ownedBy(only).apply();

    Widgets.widget(client, ns.name(), "owner").delete();

    ObjectAwaits.awaitGone(client, owner, DEADLINE);
    assertSurvive(List.of(other, shared, only, grandchild));
    assertEquals(List.of(uid(other)), ownerUids(shared), "shared keeps its reference to other only");
    assertEquals(List.of(), ownerUids(only), "only lost its one reference, to owner");
    assertEquals(List.of(uid(only)), ownerUids(grandchild), "grandchild untouched");
  }

  @Test
  void kubectlDeleteCascadeOrphanOnSynchronousOwnerKeepsDependents(TestNamespace ns) {
    BuiltInCollector.assumeRunning("--cascade=orphan puts the orphan finalizer on the owner, which only the"
        + " collector removes");
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource d1 = Widgets.create(client, ns.name(), "d1").ownedBy(owner).apply();
    GenericKubernetesResource d2 = Widgets.create(client, ns.name(), "d2").ownedBy(owner).apply();
    GenericKubernetesResource grandchild = Widgets.create(client, ns.name(), "grandchild")
        .ownedBy(d2).apply();

    ProcessRunner.kubectl(BUILT_IN_GC_DEADLINE.plusSeconds(30), "delete", "widgets.test.syncgc.dev",
        "owner", "-n", ns.name(), "--cascade=orphan", "--timeout=" + BUILT_IN_GC_DEADLINE.toSeconds() + "s")
        .assertOk();

    assertFalse(ObjectAwaits.exists(client, owner), "kubectl returned once the owner was gone");
    assertSurvive(List.of(d1, d2, grandchild));
    // the built-in collector removes the references before it lets the owner go
    assertEquals(List.of(), ownerUids(d1));
    assertEquals(List.of(), ownerUids(d2));
    assertEquals(List.of(uid(d2)), ownerUids(grandchild));
  }

  @Test
  void kubectlDeleteCascadeForegroundOnSynchronousOwnerDeletesEverythingWithoutDeadlock(TestNamespace ns) {
    BuiltInCollector.assumeRunning("--cascade=foreground puts the foregroundDeletion finalizer on the owner,"
        + " which only the collector removes");
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid")
        .ownedBy(owner, true, true).apply();
    GenericKubernetesResource leaf1 = Widgets.create(client, ns.name(), "leaf1")
        .ownedBy(mid, true, true).apply();
    GenericKubernetesResource leaf2 = Widgets.create(client, ns.name(), "leaf2").ownedBy(mid).apply();
    GenericKubernetesResource sibling = Widgets.create(client, ns.name(), "sibling").ownedBy(owner)
        .apply();

    ProcessRunner.kubectl(BUILT_IN_GC_DEADLINE.plusSeconds(30), "delete", "widgets.test.syncgc.dev",
        "owner", "-n", ns.name(), "--cascade=foreground", "--timeout=" + BUILT_IN_GC_DEADLINE.toSeconds() + "s")
        .assertOk();

    assertFalse(ObjectAwaits.exists(client, owner), "kubectl returned once the owner was gone");
    ObjectAwaits.awaitAllGone(client, List.of(mid, leaf1, leaf2, sibling), DEADLINE);
  }

  @Test
  void deletingNamespaceFullOfOptedInTreesCompletes(TestNamespace ns) {
    List<HasMetadata> optedIn = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      GenericKubernetesResource root = Widgets.create(client, ns.name(), "root-" + t)
          .synchronous().apply();
      optedIn.add(root);
      for (int m = 0; m < 3; m++) {
        GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid-" + t + "-" + m)
            .synchronous().ownedBy(root).apply();
        optedIn.add(mid);
        for (int l = 0; l < 3; l++) {
          Widgets.create(client, ns.name(), "leaf-" + t + "-" + m + "-" + l).ownedBy(mid).apply();
        }
        client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("config-" + t + "-" + m)
                .withOwnerReferences(Widgets.ownerReference(mid)).endMetadata()
            .addToData("key", "value").build()).create();
      }
    }
    if (TestCluster.get().builtInCollector()) { // an Orphan owner's orphan finalizer goes only with the collector
      GenericKubernetesResource orphaning = Widgets.create(client, ns.name(), "orphaning")
          .annotate(PROPAGATION, ORPHAN).apply();
      optedIn.add(orphaning);
      Widgets.create(client, ns.name(), "orphan-dependent").ownedBy(orphaning).apply();
    }
    for (HasMetadata o : optedIn) {
      ObjectAwaits.awaitSyncgcFinalizer(client, o, ObjectAwaits.SETUP_DEADLINE);
    }

    client.namespaces().withName(ns.name()).delete();

    await("namespace " + ns + " gone").atMost(BUILT_IN_GC_DEADLINE).pollInterval(Duration.ofMillis(500))
        .until(() -> client.namespaces().withName(ns.name()).get() == null);
  }

  @Test
  void helmUninstallRemovesReleaseWithSynchronousOwnerAndItsDependents(TestNamespace ns,
      @TempDir Path temp) throws IOException {
    TestCrds.install(client);
    Path chart = temp.resolve("chart");
    Files.createDirectories(chart.resolve("templates"));
    Files.writeString(chart.resolve("Chart.yaml"), """
        apiVersion: v2
        name: syncgc-e2e-tree
        description: A Widget that owns what the test hangs under it
        version: 0.1.0
        """);
    Files.writeString(chart.resolve("templates").resolve("owner.yaml"), """
        apiVersion: test.syncgc.dev/v1
        kind: Widget
        metadata:
          name: {{ .Release.Name }}-owner
          annotations:
            syncgc.dev/propagation: Synchronous
        spec:
          size: 1
        """);
    Path helmHome = temp.resolve("helm");
    ProcessRunner.helm(helmHome, DEADLINE, "install", "tree", chart.toString(), "-n", ns.name())
        .assertOk();
    GenericKubernetesResource owner = Widgets.widget(client, ns.name(), "tree-owner").get();
    assertNotNull(owner, "helm created the owner");
    ObjectAwaits.awaitSyncgcFinalizer(client, owner, ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource d1 = Widgets.create(client, ns.name(), "d1").ownedBy(owner).apply();
    GenericKubernetesResource d2 = Widgets.create(client, ns.name(), "d2").ownedBy(owner).apply();
    GenericKubernetesResource grandchild = Widgets.create(client, ns.name(), "grandchild")
        .ownedBy(d1).apply();

    ProcessRunner.Result uninstall = ProcessRunner.helm(helmHome, BUILT_IN_GC_DEADLINE,
        "uninstall", "tree", "-n", ns.name(), "--wait", "--timeout", DEADLINE.toSeconds() + "s");

    uninstall.assertOk();
    List<String> left = List.of(owner, d1, d2, grandchild).stream()
        .filter(o -> ObjectAwaits.exists(client, o)).map(o -> o.getMetadata().getName())
        .collect(Collectors.toList());
    assertEquals(List.of(), left, "nothing left once helm uninstall --wait returned; helm said:\n"
        + uninstall.output());
  }

  /** Every object stays in the store, not being deleted, for a few seconds. */
  private void assertSurvive(List<? extends HasMetadata> objects) {
    await("survivors stay").during(SURVIVAL).atMost(SURVIVAL.plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> objects.stream().allMatch(o -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, o);
          return now != null && now.getMetadata().getDeletionTimestamp() == null;
        }));
  }

  private List<String> ownerUids(HasMetadata object) {
    GenericKubernetesResource now = ObjectAwaits.current(client, object);
    assertTrue(now != null, object.getMetadata().getName() + " exists");
    return now.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid)
        .collect(Collectors.toList());
  }

  private static String uid(HasMetadata object) {
    return object.getMetadata().getUid();
  }
}
