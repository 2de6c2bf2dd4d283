package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A kind the operator tracks but may not list and watch (the chart's restricted RBAC, where every CRD
 * kind is tracked and only the granted ones may be listed) is named once at start, in the log and in
 * {@code syncgc_kinds_forbidden}; an owner of that kind counts as keeping (SPEC, safety invariant 1):
 * a dependent it co-owns survives a Synchronous cascade of its other owner, which loses only its
 * reference to the owner being deleted and does not wait for it.
 */
@ExtendWith(TestNamespace.Extension.class)
class ForbiddenKindIT {
  /** Far below the deletion's deadline (--default-timeout): an owner that waited for the dependent misses it. */
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aForbiddenKindIsNamedAtStartAndItsOwnerKeepsWhatItCoOwns(TestNamespace ns) throws Exception {
    SharedOperator.pause();
    String account = "forbidden-kind-" + Namespaces.randomSuffix(8);
    try {
      Path kubeconfig = configMapsOnly(ns.name(), account);
      GenericKubernetesResource keeper = Widgets.create(client, ns.name(), "keeper").apply();
      try (OperatorProcess operator = OperatorProcess.start("forbidden-kind",
          List.of("--namespaces", ns.name(), "--builtin-kinds", "ConfigMap", "--default-timeout", "10m"),
          Map.of("KUBECONFIG", kubeconfig.toString()))) {
        operator.awaitReady();
        operator.awaitLog("kinds not seen, list and watch forbidden: ");
        String start = operator.log().lines().filter(l -> l.contains("kinds not seen, list and watch forbidden: "))
            .findFirst().orElseThrow();
        assertTrue(start.contains("test.syncgc.dev/Widget"), "the forbidden kind is named: " + start);
        assertTrue(operator.metrics().lines().anyMatch(l -> l.startsWith("syncgc_kinds_forbidden ")
            && Double.parseDouble(l.substring(l.indexOf(' ') + 1)) >= 1), "syncgc_kinds_forbidden counts it");

        ConfigMap owner = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("owner").addToAnnotations(PROPAGATION, SYNCHRONOUS).endMetadata().build())
            .create();
        ObjectAwaits.awaitSyncgcFinalizer(() -> client.configMaps().inNamespace(ns.name()).withName("owner").get());
        OwnerReference toOwner = Widgets.ownerReference(owner, true, false);
        OwnerReference toKeeper = Widgets.ownerReference(keeper, true, false);
        client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
            .withName("dependent").withOwnerReferences(toOwner, toKeeper).endMetadata().build()).create();

        client.configMaps().inNamespace(ns.name()).withName("owner").delete();
        await("the owner gone without waiting for the dependent its forbidden co-owner keeps").atMost(DEADLINE)
            .until(() -> client.configMaps().inNamespace(ns.name()).withName("owner").get() == null);
        ConfigMap dependent = client.configMaps().inNamespace(ns.name()).withName("dependent").get();
        assertTrue(dependent != null && dependent.getMetadata().getDeletionTimestamp() == null,
            "kept by its owner of a forbidden kind: " + dependent);
        assertEquals(List.of(keeper.getMetadata().getUid()), dependent.getMetadata().getOwnerReferences().stream()
            .map(OwnerReference::getUid).toList(), "only the reference to the deleted owner is removed");
      }
    } finally {
      ServiceAccounts.unbind(client, account);
      SharedOperator.resume();
    }
  }

  /** The identity of the chart's restricted mode granted ConfigMaps only, and a kubeconfig acting as it. */
  private Path configMapsOnly(String namespace, String account) throws Exception {
    return ServiceAccounts.boundTo(client, namespace, account, ServiceAccounts.configMapsOnly());
  }
}
