package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC "Keep one dependent": a dependent carrying {@code syncgc.dev/keep: "true"} (an invalid value counts
 * as true and is reported), or selected by a policy with {@code keep: true}, survives every syncgc
 * cascade through it: only its reference to the deleted owner goes (its other references stay), what
 * it owns stays with it, the owner does not wait for it, and SynchronousDeletionCompleted counts it. In
 * waves, rings, with uses, at a Release deadline, after a SIGKILL mid-cascade, and for owners of 100 and 1,000 dependents. Every claim here
 * is syncgc's own cascade: the class runs without the built-in collector too (e2e/nogc/tests.txt).
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class KeepDependentIT {
  private static final String KEEP = "syncgc.dev/keep";
  private static final String WAVE = "syncgc.dev/deletion-wave";
  private static final String USES = "syncgc.dev/uses";
  private static final String HOLD = "example.com/hold";
  private static final Duration GONE_DEADLINE = Duration.ofSeconds(60);

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aKeptDependentLosesOnlyItsReferenceToTheOwnerAndKeepsWhatItOwns(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource other = Widgets.create(client, ns.name(), "other").apply();
      GenericKubernetesResource kept = Widgets.create(client, ns.name(), "kept").ownedBy(owner).ownedBy(other)
          .annotate(KEEP, "true").apply();
      GenericKubernetesResource keptChild = Widgets.create(client, ns.name(), "kept-child").ownedBy(kept).apply();
      GenericKubernetesResource app = Widgets.create(client, ns.name(), "app").ownedBy(owner).apply();
      GenericKubernetesResource appChild = Widgets.create(client, ns.name(), "app-child").ownedBy(app).apply();
      ConfigMap odd = configMap(ns, "odd", owner, Map.of(KEEP, "yes"));
      ConfigMap no = configMap(ns, "no", owner, Map.of(KEEP, "false"));
      Events.awaitContaining(client, odd, "Warning", "InvalidAnnotation", KEEP, "yes");

      Widgets.widget(client, ns.name(), "owner").delete();

      deletions.awaitDeleted(GONE_DEADLINE, List.of(owner, app, appChild, no));
      deletions.checkWatches();
      deletions.assertBefore("app-child", "app");
      deletions.assertBefore("app", "owner");
      deletions.assertBefore("no", "owner");
      assertEquals(3, deletions.missing(List.of(kept, keptChild, odd)).size(),
          "nothing kept is deleted: " + deletions.deletions());
      assertEquals(List.of(other.getMetadata().getUid()), ownerUids(Widgets.reload(client, kept)),
          "its other reference stays");
      assertEquals(List.of(kept.getMetadata().getUid()), ownerUids(Widgets.reload(client, keptChild)));
      assertEquals(List.of(), ownerUids(client.configMaps().inNamespace(ns.name()).withName("odd").get()),
          "an invalid value counts as keep: left without owners");
      Events.awaitContaining(client, owner, "Normal", "SynchronousDeletionCompleted", "2 dependents kept (" + KEEP + ")");
    }
  }

  @Test
  void aPolicyKeepsWhatItSelectsWithoutOptingItInAndAnAnnotationWinsOverIt(TestNamespace ns) {
    String label = "e2e.syncgc.dev/keep-" + ns.name();
    String policy = "e2e-keep-" + ns.name();
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", "", "kind", "ConfigMap")));
    spec.put("selector", Map.of("matchLabels", Map.of(label, "data")));
    spec.put("keep", true); // no propagation: a keeping policy opts nothing in
    GcPolicies.create(client, policy, spec);
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      awaitReady(policy);
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
      ConfigMap data = configMap(ns, "data", owner, Map.of(), Map.of(label, "data"));
      ConfigMap overridden = configMap(ns, "overridden", owner, Map.of(KEEP, "false"), Map.of(label, "data"));
      ConfigMap plain = configMap(ns, "plain", owner, Map.of());

      Widgets.widget(client, ns.name(), "owner").delete();

      deletions.awaitDeleted(GONE_DEADLINE, List.of(owner, overridden, plain));
      assertEquals(1, deletions.missing(List.of(data)).size(), "the data ConfigMap is kept: " + deletions.deletions());
      ConfigMap left = client.configMaps().inNamespace(ns.name()).withName("data").get();
      assertEquals(List.of(), ownerUids(left));
      assertFalse(left.getMetadata().getFinalizers().contains(FINALIZER), "a keeping policy opts nothing in");
      Events.awaitContaining(client, owner, "Normal", "SynchronousDeletionCompleted", "1 dependent kept");
    } finally {
      GcPolicies.delete(client, policy);
    }
  }

  /**
   * Wave 5 kept, wave 1 app, wave 0 db: the kept one holds no wave back. A ring a ↔ b under the owner
   * whose member b is kept: b keeps a as a solid owner outside would, so both stay and a loses only its
   * reference to the owner. A user of the kept object goes, first; the object it uses is kept.
   */
  @Test
  void inWavesRingsAndWithUsesTheKeptStayAndTheRestGoInOrder(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource high = Widgets.create(client, ns.name(), "high").ownedBy(owner)
          .annotations(Map.of(KEEP, "true", WAVE, "5")).apply();
      GenericKubernetesResource app = Widgets.create(client, ns.name(), "app").ownedBy(owner).annotate(WAVE, "1")
          .apply();
      ConfigMap db = configMap(ns, "db", owner, Map.of());
      GenericKubernetesResource a = Widgets.create(client, ns.name(), "a").ownedBy(owner).apply();
      GenericKubernetesResource b = Widgets.create(client, ns.name(), "b").ownedBy(a).annotate(KEEP, "true").apply();
      a = Widgets.reload(client, a);
      a.getMetadata().getOwnerReferences().add(Widgets.ownerReference(b));
      a = client.resource(a).update();
      ConfigMap user = configMap(ns, "user", owner, Map.of(USES, "widgets.test.syncgc.dev/high"));

      Widgets.widget(client, ns.name(), "owner").delete();

      deletions.awaitDeleted(GONE_DEADLINE, List.of(owner, app, db, user));
      deletions.checkWatches();
      deletions.assertBefore("app", "db");
      deletions.assertBefore("db", "owner");
      assertEquals(3, deletions.missing(List.of(high, a, b)).size(), "the kept and the ring it keeps stay: "
          + deletions.deletions());
      assertEquals(List.of(), ownerUids(Widgets.reload(client, high)));
      assertEquals(List.of(b.getMetadata().getUid()), ownerUids(Widgets.reload(client, a)), "a keeps only b");
      assertEquals(List.of(a.getMetadata().getUid()), ownerUids(Widgets.reload(client, b)));
      Events.awaitContaining(client, owner, "Normal", "SynchronousDeletionCompleted", "1 dependent kept");
    }
  }

  /**
   * At a Release deadline the owner goes with a held dependent left; the kept one loses its reference
   * first and is never deleted afterwards, when the held one goes.
   */
  @Test
  void atAReleaseDeadlineTheKeptStaysAndTheBackgroundDeletionThatFollowsLeavesIt(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .annotate(TIMEOUT, "3s").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource held = Widgets.create(client, ns.name(), "held").ownedBy(owner).finalizer(HOLD)
          .apply();
      GenericKubernetesResource kept = Widgets.create(client, ns.name(), "kept").ownedBy(owner).annotate(KEEP, "true")
          .apply();
      try {
        Widgets.widget(client, ns.name(), "owner").delete();
        deletions.awaitDeleted(GONE_DEADLINE, owner);
        Events.await(client, owner, "SynchronousDeletionTimedOut");
      } finally {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      }
      deletions.awaitDeleted(GONE_DEADLINE, held);
      await("the kept one stays").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
          .until(() -> ObjectAwaits.exists(client, kept));
      assertEquals(List.of(), ownerUids(Widgets.reload(client, kept)));
    }
  }

  /**
   * An owner of 1,000 ConfigMaps, every tenth kept, deleted with kubectl syncgc delete: exactly the 100
   * kept survive, without owners, every other one is gone, the owner is released, and the plugin prints
   * the count.
   */
  @Test
  void ofAThousandDependentsEveryTenthKeptExactlyAHundredSurviveOwnerless(TestNamespace ns) {
    ConfigMap root = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
        .withName("root").addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build()).create();
    ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(ns.name()).withName("root").get());
    IntStream.range(0, 1000).parallel().forEach(i -> configMap(ns, "d-" + i, root,
        i % 10 == 0 ? Map.of(KEEP, "true") : Map.of()));

    ProcessRunner.Result r = KubectlSyncgc.run("delete", "configmap/root", "-n", ns.name());

    assertEquals(0, r.exitCode(), r.describe());
    assertTrue(r.stdout().contains("100 kept (" + KEEP + ")"), r.describe());
    await("the root gone").atMost(GONE_DEADLINE)
        .until(() -> client.configMaps().inNamespace(ns.name()).withName("root").get() == null);
    List<ConfigMap> left = client.configMaps().inNamespace(ns.name()).list().getItems().stream()
        .filter(c -> c.getMetadata().getName().startsWith("d-")).toList();
    assertEquals(IntStream.range(0, 100).mapToObj(i -> "d-" + 10 * i).sorted().toList(),
        left.stream().map(c -> c.getMetadata().getName()).sorted().toList());
    assertTrue(left.stream().allMatch(c -> ownerUids(c).isEmpty()), "every kept one is left without owners");
    Events.awaitContaining(client, root, "Normal", "SynchronousDeletionCompleted", "100 dependents kept");
  }

  /**
   * The same in seconds, the case the kind suite runs against the chart's in-cluster operator
   * (e2e/kind/tests.txt): a synchronous Widget owning 100 ConfigMaps, every tenth kept, deleted with a
   * plain DELETE, as kubectl sends it. The ten kept survive without owners, the ninety others and the
   * owner go, and SynchronousDeletionCompleted counts the ten.
   */
  @Test
  void ofAHundredDependentsEveryTenthKeptAPlainDeleteLeavesTheTenOwnerless(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
    IntStream.range(0, 100).parallel().forEach(i -> configMap(ns, "d-" + i, owner,
        i % 10 == 0 ? Map.of(KEEP, "true") : Map.of()));

    Widgets.widget(client, ns.name(), "owner").delete();

    await("the owner gone").atMost(GONE_DEADLINE).until(() -> !ObjectAwaits.exists(client, owner));
    List<ConfigMap> left = client.configMaps().inNamespace(ns.name()).list().getItems().stream()
        .filter(c -> c.getMetadata().getName().startsWith("d-")).toList();
    assertEquals(IntStream.range(0, 10).mapToObj(i -> "d-" + 10 * i).sorted().toList(),
        left.stream().map(c -> c.getMetadata().getName()).sorted().toList());
    assertTrue(left.stream().allMatch(c -> ownerUids(c).isEmpty()), "every kept one is left without owners");
    Events.awaitContaining(client, owner, "Normal", "SynchronousDeletionCompleted", "10 dependents kept");
  }

  /**
   * Safety invariant 4 with keep: an operator SIGKILLed in the middle of a cascade through 300 ConfigMaps,
   * every tenth kept, and started again with a fresh graph: the kept 30 survive ownerless, nothing kept
   * was ever deleted, the rest and the root go.
   */
  @Test
  void aCascadeInterruptedBySigkillStillKeepsTheKeptAfterTheRestart(TestNamespace ns) {
    SharedOperator.pause();
    OperatorProcess process = OperatorProcess.startReady("keep-restart", "--kube-api-qps", "20", "--kube-api-burst",
        "20"); // so that the cascade lasts seconds
    try (DeletionOrder deletions = DeletionOrder.of(client.configMaps().inNamespace(ns.name()))) {
      ConfigMap root = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
          .withName("root").addToAnnotations(PROPAGATION, SYNCHRONOUS).addToAnnotations(TIMEOUT, "10m").endMetadata()
          .build()).create();
      ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(ns.name()).withName("root").get());
      List<ConfigMap> all = IntStream.range(0, 300).parallel().mapToObj(i -> configMap(ns, "d-" + i, root,
          i % 10 == 0 ? Map.of(KEEP, "true") : Map.of())).toList();
      List<ConfigMap> kept = all.stream().filter(c -> c.getMetadata().getAnnotations().containsKey(KEEP)).toList();
      List<ConfigMap> others = all.stream().filter(c -> !kept.contains(c)).toList();

      client.configMaps().inNamespace(ns.name()).withName("root").delete();
      await("60 deleted").atMost(GONE_DEADLINE).pollInterval(Duration.ofMillis(20))
          .until(() -> others.size() - deletions.missing(others).size() >= 60);
      process.kill();
      assertTrue(deletions.missing(others).size() > 0, "killed in the middle");
      process.start();
      process.awaitReady();

      deletions.awaitDeleted(Duration.ofSeconds(180), others);
      deletions.awaitDeleted(GONE_DEADLINE, root);
      assertEquals(kept.size(), deletions.missing(kept).size(), "no kept one was ever deleted: " + deletions.deletions());
      assertTrue(kept.stream().allMatch(c -> ownerUids(client.configMaps().inNamespace(ns.name())
          .withName(c.getMetadata().getName()).get()).isEmpty()), "every kept one is left without owners");
    } finally {
      if (process.isAlive()) {
        process.stop();
      }
      SharedOperator.resume();
    }
  }

  private void awaitReady(String policy) {
    await("policy " + policy + " Ready").atMost(SETUP_DEADLINE).until(() -> {
      GenericKubernetesResource p = client.genericKubernetesResources(GcPolicies.POLICY).withName(policy).get();
      Object status = p == null ? null : p.getAdditionalProperties().get("status");
      return status != null && status.toString().contains("type=Ready") && status.toString().contains("status=True");
    });
  }

  private static List<String> ownerUids(HasMetadata o) {
    return o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  private ConfigMap configMap(TestNamespace ns, String name, HasMetadata owner, Map<String, String> annotations) {
    return configMap(ns, name, owner, annotations, Map.of());
  }

  private ConfigMap configMap(TestNamespace ns, String name, HasMetadata owner, Map<String, String> annotations,
      Map<String, String> labels) {
    return client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
        .addToOwnerReferences(Widgets.ownerReference(owner)).addToAnnotations(annotations).addToLabels(labels)
        .endMetadata().build()).create();
  }
}
