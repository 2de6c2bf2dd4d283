package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * syncgc sees every kind the built-in collector sees: a Synchronous owner waits for
 * dependents of built-in kinds outside the old default list (a ServiceAccount, a NetworkPolicy),
 * and goes only after them.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class EveryServedKindIT {
  private static final String HOLD = "example.com/hold";

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void synchronousOwnerWaitsForDependentsOfEveryServedKind(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("held").withOwnerReferences(Widgets.ownerReference(owner)).withFinalizers(HOLD).endMetadata()
        .build()).create();
    client.network().v1().networkPolicies().inNamespace(ns.name()).resource(new NetworkPolicyBuilder()
        .withNewMetadata().withName("policy").withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
        .withNewSpec().withNewPodSelector().endPodSelector().endSpec().build()).create();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())
        .watch(client.serviceAccounts().inNamespace(ns.name()))
        .watch(client.network().v1().networkPolicies().inNamespace(ns.name()))) {
      Widgets.widget(client, ns.name(), "owner").delete();
      order.awaitDeleted(Duration.ofSeconds(30), "policy");
      Events.awaitContaining(client, owner, "Normal", "WaitingForDependents", "ServiceAccount/" + ns.name() + "/held",
          HOLD);
      assertTrue(ObjectAwaits.exists(client, owner), "the owner waits for its ServiceAccount");

      client.serviceAccounts().inNamespace(ns.name()).withName("held")
          .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]");

      order.awaitDeleted(Duration.ofSeconds(30), "owner");
      order.assertBefore("held", "owner");
      order.assertBefore("policy", "owner");
    }
  }
}
