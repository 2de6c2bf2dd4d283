package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.ORPHAN;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An upgrade that narrows the watched namespaces or kinds must not leave syncgc's
 * finalizer on objects the operator no longer watches (they would stay Terminating for ever once
 * deleted). An operator started wide opts objects in and is killed; deletions are requested while
 * none runs; an operator started narrowed releases every object outside its scope, each by its
 * propagation in force (as the uninstall release does): an alive one only loses the finalizer, a
 * Synchronous owner under deletion goes with its dependent (handed to the built-in collector), an
 * Orphan owner goes and its dependent survives. Objects still in scope keep the finalizer.
 */
@ExtendWith(TestNamespace.Extension.class)
class NarrowedScopeIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String REASON = "ReleasedNoLongerTracked";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aNarrowedOperatorReleasesWhatItNoLongerWatches(TestNamespace ns) {
    BuiltInCollector.assumeRunning("the deletion of what the narrowed operator hands over");
    SharedOperator.pause();
    String dropped = Namespaces.create(client, "NarrowedScopeIT#dropped");
    try {
      List<String> wide = List.of("--namespaces", ns.name() + "," + dropped, "--builtin-kinds", "ConfigMap");
      GenericKubernetesResource kept;
      GenericKubernetesResource aliveDropped;
      GenericKubernetesResource going;
      GenericKubernetesResource goingDependent;
      GenericKubernetesResource orphaning;
      GenericKubernetesResource orphaned;
      ConfigMap configMap;
      try (OperatorProcess operator = OperatorProcess.start("narrowed-scope-wide", wide, Map.of())) {
        operator.awaitReady();
        kept = Widgets.create(client, ns.name(), "kept").annotate(PROPAGATION, SYNCHRONOUS)
            .applyAndAwaitFinalizer(SETUP_DEADLINE);
        aliveDropped = Widgets.create(client, dropped, "alive").annotate(PROPAGATION, SYNCHRONOUS)
            .applyAndAwaitFinalizer(SETUP_DEADLINE);
        going = Widgets.create(client, dropped, "going").annotate(PROPAGATION, SYNCHRONOUS)
            .applyAndAwaitFinalizer(SETUP_DEADLINE);
        goingDependent = Widgets.create(client, dropped, "going-dependent").ownedBy(going, true, false).apply();
        orphaning = Widgets.create(client, dropped, "orphaning").annotate(PROPAGATION, ORPHAN)
            .applyAndAwaitFinalizer(SETUP_DEADLINE);
        orphaned = Widgets.create(client, dropped, "orphaned").ownedBy(orphaning).apply();
        configMap = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("cm").addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata()
            .build()).create();
        ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(ns.name()).withName("cm").get());
        operator.kill();
      }
      // deleted while no operator runs: held by syncgc's finalizer
      Widgets.widget(client, dropped, "going").delete();
      Widgets.widget(client, dropped, "orphaning").delete();
      ObjectAwaits.awaitWidgetMarkedDeleted(client, dropped, "going");
      ObjectAwaits.awaitWidgetMarkedDeleted(client, dropped, "orphaning");

      // narrowed: the namespace `dropped` and the kind ConfigMap are no longer watched
      List<String> narrow = List.of("--namespaces", ns.name(), "--builtin-kinds", "Secret");
      try (OperatorProcess operator = OperatorProcess.start("narrowed-scope-narrow", narrow, Map.of())) {
        operator.awaitReady();

        await("the finalizer leaves the alive Widget no longer watched").atMost(DEADLINE)
            .until(() -> !ObjectAwaits.hasFinalizer(Widgets.reload(client, aliveDropped), FINALIZER));
        assertTrue(ObjectAwaits.exists(client, aliveDropped), "the alive Widget stays");
        await("the finalizer leaves the ConfigMap no longer watched").atMost(DEADLINE)
            .until(() -> !ObjectAwaits.hasFinalizer(
                client.configMaps().inNamespace(ns.name()).withName("cm").get(), FINALIZER));
        ObjectAwaits.awaitGone(client, going, DEADLINE);
        ObjectAwaits.awaitGone(client, goingDependent, DEADLINE);
        ObjectAwaits.awaitGone(client, orphaning, DEADLINE);
        GenericKubernetesResource survivor = Widgets.reload(client, orphaned);
        assertNotNull(survivor, "the Orphan owner's dependent survives");
        assertTrue(survivor.getMetadata().getOwnerReferences().isEmpty(),
            "the Orphan owner's dependent lost the reference: " + survivor.getMetadata().getOwnerReferences());

        Events.awaitContaining(client, aliveDropped, "Normal", REASON, dropped);
        Events.awaitContaining(client, configMap, "Normal", REASON, "ConfigMap");
        assertTrue(operator.log().contains("no longer tracked"), "logged: " + operator.logFile());

        // still in scope: untouched
        GenericKubernetesResource stillKept = Widgets.reload(client, kept);
        assertTrue(ObjectAwaits.hasFinalizer(stillKept, FINALIZER), "in scope, kept: " + stillKept.getMetadata());
        assertEquals(0, Events.bySyncgc(client, kept).stream().filter(e -> REASON.equals(e.getReason())).count());
      }
    } finally {
      Namespaces.deleteAsync(client, dropped);
      SharedOperator.resume();
    }
  }

  /**
   * The chart's restricted RBAC narrows with the kinds: an operator that may no longer list a kind it
   * dropped names that kind in its log, leaves its objects as they are (UPGRADING.md says how to
   * release them) and goes on working.
   */
  @Test
  void aKindTheNarrowedOperatorMayNotListIsNamedAndTheOperatorGoesOn(TestNamespace ns) throws Exception {
    SharedOperator.pause();
    String account = "narrowed-" + Namespaces.randomSuffix(8);
    try {
      try (OperatorProcess operator = OperatorProcess.start("narrowed-rbac-wide",
          List.of("--namespaces", ns.name(), "--builtin-kinds", "ConfigMap,Secret"), Map.of())) {
        operator.awaitReady();
        client.secrets().inNamespace(ns.name()).resource(new SecretBuilder().withNewMetadata().withName("s")
            .addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build()).create();
        ObjectAwaits.awaitSyncgcFinalizer(() -> client.secrets().inNamespace(ns.name()).withName("s").get());
        operator.kill();
      }

      // the narrowed operator's identity, as the chart's restricted ClusterRole gives it: ConfigMaps only
      Path kubeconfig = ServiceAccounts.boundTo(client, ns.name(), account, ServiceAccounts.configMapsOnly());

      try (OperatorProcess operator = OperatorProcess.start("narrowed-rbac-narrow",
          List.of("--namespaces", ns.name(), "--builtin-kinds", "ConfigMap"), Map.of("KUBECONFIG", kubeconfig.toString()))) {
        operator.awaitReady();
        operator.awaitLog("objects no longer tracked checked");
        String log = operator.log();
        assertTrue(log.contains("this operator may not list: ") && log.contains("secrets (forbidden)"),
            "the kind it may not list is named: " + operator.logFile());

        // it goes on: a ConfigMap is still opted in, and the Secret is left as it was
        client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata().withName("cm")
            .addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build()).create();
        ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(ns.name()).withName("cm").get());
        Secret secret = client.secrets().inNamespace(ns.name()).withName("s").get();
        assertTrue(ObjectAwaits.hasFinalizer(secret, FINALIZER), "not listed, not touched: " + secret.getMetadata());
      }
    } finally {
      MetadataPatches.removeFinalizer(client.secrets().inNamespace(ns.name()).withName("s"), FINALIZER);
      MetadataPatches.removeFinalizer(client.configMaps().inNamespace(ns.name()).withName("cm"), FINALIZER);
      ServiceAccounts.unbind(client, account);
      SharedOperator.resume();
    }
  }
}
