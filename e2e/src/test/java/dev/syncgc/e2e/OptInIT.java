package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.BACKGROUND;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.ORPHAN;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.LateCrd;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Opting in and out with the propagation annotation, for CRD kinds (also later ones) and built-in kinds. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class OptInIT {
  /** SPEC.md: a CRD created later is tracked within 10 s; then the finalizer's p99 of 2 s. */
  private static final Duration LATE_CRD_DEADLINE = Duration.ofSeconds(12);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void annotatingExistingWidgetSynchronousAddsFinalizer(TestNamespace ns) {
    Widgets.create(client, ns.name(), "widget").apply();

    MetadataPatches.annotate(Widgets.widget(client, ns.name(), "widget"), PROPAGATION, SYNCHRONOUS);

    awaitFinalizer(ns, "widget", true);
  }

  @Test
  void annotatingExistingWidgetOrphanAddsFinalizer(TestNamespace ns) {
    Widgets.create(client, ns.name(), "widget").apply();

    MetadataPatches.annotate(Widgets.widget(client, ns.name(), "widget"), PROPAGATION, ORPHAN);

    awaitFinalizer(ns, "widget", true);
  }

  @Test
  void removingPropagationAnnotationRemovesFinalizer(TestNamespace ns) {
    Widgets.create(client, ns.name(), "widget").synchronous().apply();
    awaitFinalizer(ns, "widget", true);

    MetadataPatches.removeAnnotation(Widgets.widget(client, ns.name(), "widget"), PROPAGATION);

    awaitFinalizer(ns, "widget", false);
  }

  @Test
  void settingPropagationBackgroundRemovesFinalizer(TestNamespace ns) {
    Widgets.create(client, ns.name(), "widget").synchronous().apply();
    awaitFinalizer(ns, "widget", true);

    MetadataPatches.annotate(Widgets.widget(client, ns.name(), "widget"), PROPAGATION, BACKGROUND);

    awaitFinalizer(ns, "widget", false);
  }

  @Test
  void annotatedObjectOfCrdCreatedAfterOperatorStartGetsFinalizerWithinTwelveSeconds(TestNamespace ns) {
    try (LateCrd crd = LateCrd.create(client)) {
      crd.createGadget(ns.name(), "gadget", Map.of(PROPAGATION, SYNCHRONOUS));

      Duration left = Duration.between(Instant.now(), crd.established().plus(LATE_CRD_DEADLINE));
      ObjectAwaits.awaitFinalizer(() -> crd.gadget(ns.name(), "gadget").get(), FINALIZER, true,
          left.isNegative() ? Duration.ZERO : left);
    }
  }

  @Test
  void objectOfCrdCreatedAfterOperatorStartIsDeletedSynchronouslyAfterItsWidgetDependent(TestNamespace ns) {
    try (LateCrd crd = LateCrd.create(client)) {
      crd.createGadget(ns.name(), "gadget", Map.of(PROPAGATION, SYNCHRONOUS));
      GenericKubernetesResource gadget = ObjectAwaits.awaitFinalizer(
          () -> crd.gadget(ns.name(), "gadget").get(), FINALIZER, true, DEADLINE);
      Widgets.create(client, ns.name(), "widget").ownedBy(gadget).apply();

      try (DeletionOrder order = DeletionOrder.of(crd.gadgets().inNamespace(ns.name()))
          .watch(TestCrds.widgets(client).inNamespace(ns.name()))) {
        crd.gadget(ns.name(), "gadget").delete();

        order.awaitDeleted(DEADLINE, "gadget", "widget");
        order.checkWatches();
        order.assertBefore("widget", "gadget");
      }
      assertNull(Widgets.widget(client, ns.name(), "widget").get(), "widget gone");
      assertNull(crd.gadget(ns.name(), "gadget").get(), "gadget gone");
    }
  }

  @Test
  void configMapOwnerWithSecretDependentIsDeletedSynchronously(TestNamespace ns) {
    var configMaps = client.configMaps().inNamespace(ns.name());
    var secrets = client.secrets().inNamespace(ns.name());
    configMaps.resource(new ConfigMapBuilder()
        .withNewMetadata().withName("owner-config").addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata()
        .addToData("key", "value").build()).create();
    ConfigMap owner = ObjectAwaits.awaitSyncgcFinalizer(() -> configMaps.withName("owner-config").get());
    secrets.resource(new SecretBuilder()
        .withNewMetadata().withName("dependent-secret").withOwnerReferences(Widgets.ownerReference(owner))
        .endMetadata()
        .addToStringData("key", "value").build()).create();

    try (DeletionOrder order = DeletionOrder.of(configMaps).watch(secrets)) {
      configMaps.withName("owner-config").delete();

      order.awaitDeleted(DEADLINE, "owner-config", "dependent-secret");
      order.checkWatches();
      order.assertBefore("dependent-secret", "owner-config");
      assertEquals(2, order.deletions().size(), "nothing else deleted: " + order.deletions());
    }
    assertNull(secrets.withName("dependent-secret").get(), "secret gone");
    assertNull(configMaps.withName("owner-config").get(), "config map gone");
  }

  private void awaitFinalizer(TestNamespace ns, String name, boolean present) {
    GenericKubernetesResource widget = ObjectAwaits.awaitFinalizer(
        () -> Widgets.widget(client, ns.name(), name).get(), FINALIZER, present,
        ObjectAwaits.FINALIZER_DEADLINE);
    assertTrue(ObjectAwaits.hasFinalizer(widget, FINALIZER) == present);
  }
}
