package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.LateCrd;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Deleting a CRD deletes its objects (the API server's cleanup sends the DELETEs), and it finishes
 * only once they are gone. Opted-in objects among them are collected like any other owner: the
 * operator keeps tracking the kind while its CRD is terminating, also when it starts at that moment.
 */
@ExtendWith(TestNamespace.Extension.class)
class CrdDeletionIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void objectsOfADeletedCrdAreCollectedSynchronouslyAndTheCrdGoesLast(TestNamespace ns) {
    SharedOperator.get();
    try (LateCrd crd = LateCrd.create(client)) {
      GenericKubernetesResource owner = synchronousGadget(crd, ns);
      ConfigMap dependent = heldDependent(ns, owner);
      try (DeletionOrder order = DeletionOrder.of(crd.gadgets().inNamespace(ns.name()))
          .watch(client.configMaps().inNamespace(ns.name()))) {
        client.apiextensions().v1().customResourceDefinitions().withName(crd.crdName()).delete();

        awaitTerminating(dependent);
        assertMarkedAsDeleted(crd, ns);

        MetadataPatches.removeFinalizer(client.configMaps().inNamespace(ns.name()).withName("dependent"), HOLD);
        order.awaitDeleted(DEADLINE, List.of(dependent, owner));
        order.assertBefore("dependent", "owner");
        assertEquals(List.of(), order.problems());
        await("CRD gone").atMost(DEADLINE).until(
            () -> client.apiextensions().v1().customResourceDefinitions().withName(crd.crdName()).get() == null);
      } finally {
        MetadataPatches.removeFinalizer(client.configMaps().inNamespace(ns.name()).withName("dependent"), HOLD);
      }
    }
  }

  @Test
  void operatorStartedWhileACrdIsTerminatingFinishesItsObjects(TestNamespace ns) {
    SharedOperator.pause();
    try (LateCrd crd = LateCrd.create(client)) {
      try {
        GenericKubernetesResource owner;
        ConfigMap dependent;
        try (OperatorProcess first = OperatorProcess.startReady("crd-deletion-first")) {
          owner = synchronousGadget(crd, ns);
          dependent = heldDependent(ns, owner);
          client.apiextensions().v1().customResourceDefinitions().withName(crd.crdName()).delete();
          awaitTerminating(dependent);
          assertMarkedAsDeleted(crd, ns);
          first.kill();
        }
        try (OperatorProcess second = OperatorProcess.startReady("crd-deletion-second");
            DeletionOrder order = DeletionOrder.of(crd.gadgets().inNamespace(ns.name()))
                .watch(client.configMaps().inNamespace(ns.name()))) {
          MetadataPatches.removeFinalizer(client.configMaps().inNamespace(ns.name()).withName("dependent"), HOLD);
          order.awaitDeleted(DEADLINE, List.of(dependent, owner));
          order.assertBefore("dependent", "owner");
          assertEquals(List.of(), order.problems());
        }
      } finally {
        MetadataPatches.removeFinalizer(client.configMaps().inNamespace(ns.name()).withName("dependent"), HOLD);
      }
    } finally {
      SharedOperator.resume();
    }
  }

  private GenericKubernetesResource synchronousGadget(LateCrd crd, TestNamespace ns) {
    crd.createGadget(ns.name(), "owner", Map.of(SpecNames.PROPAGATION, "Synchronous"));
    return ObjectAwaits.awaitSyncgcFinalizer(() -> crd.gadget(ns.name(), "owner").get());
  }

  private ConfigMap heldDependent(TestNamespace ns, GenericKubernetesResource owner) {
    return client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
        .withNewMetadata().withName("dependent").withNamespace(ns.name())
            .withOwnerReferences(Widgets.ownerReference(owner)).withFinalizers(HOLD).endMetadata()
        .build()).create();
  }

  private void awaitTerminating(ConfigMap dependent) {
    await("dependent Terminating").atMost(DEADLINE).until(() -> {
      ConfigMap d = client.configMaps().inNamespace(dependent.getMetadata().getNamespace())
          .withName(dependent.getMetadata().getName()).get();
      return d != null && d.getMetadata().getDeletionTimestamp() != null;
    });
  }

  private void assertMarkedAsDeleted(LateCrd crd, TestNamespace ns) {
    GenericKubernetesResource o = crd.gadget(ns.name(), "owner").get();
    assertTrue(o != null && o.getMetadata().getDeletionTimestamp() != null
        && ObjectAwaits.hasFinalizer(o, FINALIZER), "the owner waits, marked as deleted: " + o);
  }
}
