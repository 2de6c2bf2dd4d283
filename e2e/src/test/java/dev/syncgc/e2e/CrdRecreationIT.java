package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.LateCrd;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A CRD deleted and created again (same group and kind) while the operator runs. The old kind's
 * objects leave the graph with it, so an owner that waited only for them completes (a ghost left in
 * the graph would hold it), and once the CRD is gone its kind stalls no deletion in its namespace (a
 * kind left tracked would: its LIST answers 404). The new kind is tracked again within 10 s, so an
 * owner waits for a dependent of it. Once with the same storage version, once with another one.
 */
@ExtendWith(TestNamespace.Extension.class)
class CrdRecreationIT {
  /** SPEC.md: a CRD created later is tracked within 10 s; then the finalizer's p99 of 2 s. */
  private static final Duration TRACKED_DEADLINE = Duration.ofSeconds(12);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String HOLD = "example.com/hold";
  private final KubernetesClient client = TestCluster.get().client();

  @ParameterizedTest(name = "recreated with storage version {0}")
  @ValueSource(strings = {"v1", "v2"})
  void aRecreatedCrdIsTrackedAgainAndTheOldKindLeavesNoGhost(String version, TestNamespace ns) {
    SharedOperator.get();
    String n = ns.name();
    try (LateCrd first = LateCrd.create(client)) {
      ConfigMap ownerA = synchronousOwner(n, "owner-a");
      GenericKubernetesResource heldA = heldGadget(first, n, "held-a", ownerA);
      GenericKubernetesResource optedA = optedInGadget(first, n, "opted-a", ObjectAwaits.SETUP_DEADLINE);
      // the CRD goes while owner-a waits for held-a: its cleanup deletes opted-a (syncgc releases it)
      assertWaitsFor(ownerA, first.gadget(n, "held-a"), heldA, first, order -> {
        client.apiextensions().v1().customResourceDefinitions().withName(first.crdName()).delete();
        order.awaitDeleted(DEADLINE, optedA);
      });

      // the kind is gone: nothing of it holds a deletion in its namespace
      first.awaitGone();
      ConfigMap ownerC = synchronousOwner(n, "owner-c");
      ConfigMap heldC = heldConfigMap(n, "held-c", ownerC);
      assertWaitsFor(ownerC, client.configMaps().inNamespace(n).withName("held-c"), heldC, first, order -> { });

      try (LateCrd second = first.recreate(version)) {
        Instant established = second.established();
        GenericKubernetesResource optedB = optedInGadget(second, n, "opted-b",
            positive(Duration.between(Instant.now(), established.plus(TRACKED_DEADLINE))));
        System.out.printf("CrdRecreationIT %s: finalizer on a new object %d ms after the recreated CRD was"
            + " Established%n", version, Duration.between(established, Instant.now()).toMillis());
        ConfigMap ownerB = synchronousOwner(n, "owner-b");
        GenericKubernetesResource heldB = heldGadget(second, n, "held-b", ownerB);
        assertWaitsFor(ownerB, second.gadget(n, "held-b"), heldB, second, order -> { });
        assertTrue(ObjectAwaits.exists(client, optedB), "an object nothing deleted stays");
      }
    }
  }

  /**
   * Deletes {@code owner}: syncgc deletes {@code held}, which its foreign finalizer keeps Terminating
   * while the owner waits, marked as deleted, and {@code meanwhile} runs; once that finalizer goes,
   * held goes, then the owner (by the store's revisions).
   */
  private void assertWaitsFor(ConfigMap owner, Resource<? extends HasMetadata> held, HasMetadata heldObject,
      LateCrd crd, Consumer<DeletionOrder> meanwhile) {
    String n = owner.getMetadata().getNamespace();
    try (DeletionOrder order = DeletionOrder.of(client.configMaps().inNamespace(n))) {
      if (client.apiextensions().v1().customResourceDefinitions().withName(crd.crdName()).get() != null) {
        order.watch(crd.gadgets().inNamespace(n));
      }
      client.configMaps().inNamespace(n).resource(owner).delete();
      await(heldObject.getMetadata().getName() + " Terminating").atMost(DEADLINE).until(() -> {
        HasMetadata d = held.get();
        return d != null && d.getMetadata().getDeletionTimestamp() != null;
      });
      ConfigMap o = client.configMaps().inNamespace(n).withName(owner.getMetadata().getName()).get();
      assertTrue(o != null && o.getMetadata().getDeletionTimestamp() != null
          && ObjectAwaits.hasFinalizer(o, FINALIZER), "the owner waits, marked as deleted: " + o);
      meanwhile.accept(order);

      MetadataPatches.removeFinalizer(held, HOLD);
      order.awaitDeleted(DEADLINE, List.of(heldObject, owner));
      order.assertBefore(heldObject.getMetadata().getName(), owner.getMetadata().getName());
      assertEquals(List.of(), order.problems());
    } finally {
      MetadataPatches.removeFinalizer(held, HOLD);
    }
  }

  private ConfigMap synchronousOwner(String namespace, String name) {
    client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace)
            .withAnnotations(Map.of(PROPAGATION, "Synchronous")).endMetadata()
        .build()).create();
    return ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(namespace).withName(name).get());
  }

  /** A Gadget owned by {@code owner}, held by a foreign finalizer. */
  private GenericKubernetesResource heldGadget(LateCrd crd, String namespace, String name, HasMetadata owner) {
    return crd.gadgets().inNamespace(namespace).resource(new GenericKubernetesResourceBuilder()
        .withApiVersion(crd.apiVersion()).withKind(LateCrd.KIND)
        .withNewMetadata().withName(name).withNamespace(namespace)
            .withOwnerReferences(Widgets.ownerReference(owner)).withFinalizers(HOLD).endMetadata()
        .addToAdditionalProperties("spec", Map.of())
        .build()).create();
  }

  /** A Gadget opted in by its annotation, once it carries syncgc's finalizer: the kind is tracked. */
  private GenericKubernetesResource optedInGadget(LateCrd crd, String namespace, String name, Duration within) {
    crd.createGadget(namespace, name, Map.of(PROPAGATION, "Synchronous"));
    return ObjectAwaits.awaitFinalizer(() -> crd.gadget(namespace, name).get(), FINALIZER, true, within);
  }

  /** A ConfigMap owned by {@code owner}, held by a foreign finalizer. */
  private ConfigMap heldConfigMap(String namespace, String name, HasMetadata owner) {
    return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace)
            .withOwnerReferences(Widgets.ownerReference(owner)).withFinalizers(HOLD).endMetadata()
        .build()).create();
  }

  private static Duration positive(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }
}
