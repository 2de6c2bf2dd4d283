package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A kind whose LIST fails with a server error (here: a CRD whose conversion webhook is down) neither
 * blocks start-up nor lets an owner in its namespace go unchecked: the operator starts without the
 * kind, every owner that could have such dependents waits and says why, and all resumes once the
 * kind can be listed again.
 */
@ExtendWith(TestNamespace.Extension.class)
class BrokenKindIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void kindWhoseListFailsIsSkippedAtStartAndReportedAsABlockerUntilItListsAgain(TestNamespace ns) {
    String group = "broken" + Namespaces.randomSuffix(8) + ".test.syncgc.dev";
    String crdName = "brokens." + group;
    var crds = client.apiextensions().v1().customResourceDefinitions();
    SharedOperator.pause();
    try {
      crds.resource(crd(crdName, group, false)).create();
      TestCrds.awaitEstablished(client, crdName, DEADLINE);
      ResourceDefinitionContext v1 = context(group, "v1");
      client.genericKubernetesResources(v1).inNamespace(ns.name()).resource(new GenericKubernetesResourceBuilder()
          .withApiVersion(group + "/v1").withKind("Broken").withNewMetadata().withName("stored-as-v1").endMetadata()
          .build()).create();
      // v2 becomes the storage version, converted by a webhook that does not exist: a LIST of v2 fails
      switchConversion(crdName, group, true);
      await("LIST of v2 fails").atMost(DEADLINE).until(() -> listFails(context(group, "v2"), ns.name()));

      try (OperatorProcess operator = OperatorProcess.startReady("broken-kind", "--initial-list-timeout", "5s")) {
        operator.awaitLog("initial list of kind=Broken." + group);
        GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
            .applyAndAwaitFinalizer(SETUP_DEADLINE);
        GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();
        try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
          Widgets.widget(client, ns.name(), "owner").delete();

          Events.awaitContaining(client, owner, "Normal", "WaitingForDependents",
              "cannot list Broken in " + ns.name(), "conversion webhook");
          assertTrue(ObjectAwaits.exists(client, dependent) && ObjectAwaits.exists(client, owner),
              "nothing is deleted while a kind is unverified");

          switchConversion(crdName, group, false); // the kind lists again
          order.awaitDeleted(DEADLINE, List.of(owner, dependent));
          order.assertBefore("dependent", "owner");
          assertEquals(List.of(), order.problems());
        }
      }
    } finally {
      if (crds.withName(crdName).get() != null) {
        switchConversion(crdName, group, false);
      }
      client.genericKubernetesResources(context(group, "v1")).inAnyNamespace().delete();
      crds.withName(crdName).delete();
      SharedOperator.resume();
    }
  }

  private void switchConversion(String crdName, String group, boolean webhook) {
    CustomResourceDefinition wanted = crd(crdName, group, webhook);
    client.apiextensions().v1().customResourceDefinitions().withName(crdName).edit(c -> {
      c.getSpec().setVersions(wanted.getSpec().getVersions());
      c.getSpec().setConversion(wanted.getSpec().getConversion());
      return c;
    });
  }

  private boolean listFails(ResourceDefinitionContext context, String namespace) {
    try {
      client.genericKubernetesResources(context).inNamespace(namespace).list();
      return false;
    } catch (KubernetesClientException e) {
      return true; // 429 "storage is (re)initializing" or 500: the conversion fails either way
    }
  }

  private static ResourceDefinitionContext context(String group, String version) {
    return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind("Broken")
        .withPlural("brokens").withNamespaced(true).build();
  }

  /** Broken, served as v1 and v2; with {@code webhook}, v2 is stored and converted by a missing webhook. */
  private static CustomResourceDefinition crd(String name, String group, boolean webhook) {
    var builder = new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withGroup(group).withScope("Namespaced")
            .withNewNames().withKind("Broken").withListKind("BrokenList").withPlural("brokens")
                .withSingular("broken").endNames()
            .withVersions(version("v1", !webhook), version("v2", webhook))
        .endSpec();
    if (webhook) {
      builder.editSpec().withNewConversion().withStrategy("Webhook").withNewWebhook()
          .withConversionReviewVersions("v1").withNewClientConfig().withNewService()
          .withNamespace("syncgc-nowhere").withName("no-converter").withPath("/convert").withPort(443)
          .endService().endClientConfig().endWebhook().endConversion().endSpec();
    } else {
      builder.editSpec().withNewConversion().withStrategy("None").endConversion().endSpec();
    }
    return builder.build();
  }

  private static CustomResourceDefinitionVersion version(String name, boolean storage) {
    return new CustomResourceDefinitionVersionBuilder().withName(name).withServed(true).withStorage(storage)
        .withNewSchema().withOpenAPIV3Schema(new JSONSchemaPropsBuilder().withType("object")
            .withXKubernetesPreserveUnknownFields(true).build()).endSchema()
        .build();
  }
}
