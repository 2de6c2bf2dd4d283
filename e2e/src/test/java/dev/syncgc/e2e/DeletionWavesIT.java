package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC "Ordered teardown": among an owner's dependents the highest {@code syncgc.dev/deletion-wave}
 * goes first, the next lower wave only once the higher ones are gone with everything below them.
 * Order is read from the etcd revisions of the watch events.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class DeletionWavesIT {
  private static final String WAVE = "syncgc.dev/deletion-wave";
  private static final String HOLD = "example.com/hold";
  private static final Duration GONE_DEADLINE = Duration.ofSeconds(60);

  private final KubernetesClient client = TestCluster.get().client();

  /**
   * Wave 2: a Widget cr (held by another controller's finalizer) and a ConfigMap; wave 1: a Widget
   * app with a child of its own; wave 0 (no annotation): a ConfigMap db and a Widget with an invalid
   * wave, which counts as 0 and is reported.
   */
  @Test
  void threeWavesOfMixedKindsGoHighestFirstEachWaitingForTheOneAbove(TestNamespace ns) {
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource cr = Widgets.create(client, ns.name(), "cr").ownedBy(owner)
          .annotate(WAVE, "2").finalizer(HOLD).apply();
      ConfigMap crConfig = configMap(ns, "cr-config", owner, "2");
      GenericKubernetesResource app = Widgets.create(client, ns.name(), "app").ownedBy(owner)
          .annotate(WAVE, "1").apply();
      GenericKubernetesResource appChild = Widgets.create(client, ns.name(), "app-child").ownedBy(app).apply();
      ConfigMap db = configMap(ns, "db", owner, null);
      GenericKubernetesResource odd = Widgets.create(client, ns.name(), "odd").ownedBy(owner)
          .annotate(WAVE, "first").apply();
      Events.awaitContaining(client, odd, "Warning", "InvalidAnnotation", WAVE, "first");
      try {
        Widgets.widget(client, ns.name(), "owner").delete();

        deletions.awaitDeleted(GONE_DEADLINE, crConfig);
        Events.awaitContaining(client, owner, "Normal", "WaitingForDependents", "deletion wave 2",
            "Widget/" + ns.name() + "/cr");
        assertTrue(deletions.missing(List.of(app, appChild, db, odd)).size() == 4,
            "no lower wave starts while cr is held: " + deletions.deletions());
      } finally {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "cr"), HOLD);
      }

      List<HasMetadata> all = List.of(owner, cr, crConfig, app, appChild, db, odd);
      deletions.awaitDeleted(GONE_DEADLINE, all);
      deletions.checkWatches();
      for (String wave2 : List.of("cr", "cr-config")) {
        for (String lower : List.of("app", "app-child", "db", "odd")) {
          deletions.assertBefore(wave2, lower);
        }
      }
      deletions.assertBefore("app-child", "app");
      for (String wave1 : List.of("app", "app-child")) {
        deletions.assertBefore(wave1, "db");
        deletions.assertBefore(wave1, "odd");
      }
      deletions.assertBefore("db", "owner");
      deletions.assertBefore("odd", "owner");
    }
  }

  private ConfigMap configMap(TestNamespace ns, String name, HasMetadata owner, String wave) {
    ConfigMapBuilder b = new ConfigMapBuilder();
    var meta = b.withNewMetadata().withName(name).addToOwnerReferences(Widgets.ownerReference(owner));
    if (wave != null) {
      meta.addToAnnotations(WAVE, wave);
    }
    return client.configMaps().inNamespace(ns.name()).resource(meta.endMetadata().build()).create();
  }
}
