package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A re-list replaces what the operator's graph holds of a kind. An owner waits on a dependent of a
 * CRD kind; the CRD's storage version changes, so the operator replaces the kind's informer, and the
 * dependent is deleted before the new informer has listed (here: held open by taking the operator's
 * right to list the kind for a moment, so the old informer is stopped and the new one refused). The
 * new list no longer holds the dependent, and the owner completes: it must not wait on a ghost.
 */
@ExtendWith(TestNamespace.Extension.class)
class RelistIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** The refused informer tries again with a growing back-off (up to about half a minute). */
  private static final Duration RELIST_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void anOwnerCompletesWhenItsDependentWasDeletedWhileTheKindsInformerWasReplaced(TestNamespace ns) throws Exception {
    String suffix = Namespaces.randomSuffix(8);
    String group = "relist" + suffix + ".test.syncgc.dev";
    String crdName = "gizmos." + group;
    String operatorName = "relist-operator-" + suffix;
    String gizmoRights = "relist-gizmos-" + suffix;
    List<Runnable> cleanUp = new ArrayList<>();
    SharedOperator.pause();
    try {
      var crds = client.apiextensions().v1().customResourceDefinitions();
      crds.resource(crd(crdName, group, "v1")).create();
      cleanUp.add(() -> crds.withName(crdName).delete());
      TestCrds.awaitEstablished(client, crdName, DEADLINE);

      // the operator as a ServiceAccount: its own rights, and those on Gizmos apart
      client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
          .withName(operatorName).endMetadata().build()).create();
      clusterRole(operatorName, operatorName, ServiceAccounts.configMapsOnly(), ns, cleanUp);
      clusterRole(gizmoRights, operatorName, List.of(new PolicyRuleBuilder().withApiGroups(group).withResources("gizmos")
          .withVerbs("get", "list", "watch", "patch", "delete").build()), ns, cleanUp);
      Path kubeconfig = ServiceAccounts.kubeconfig(client, ns.name(), operatorName);
      List<String> args = new ArrayList<>(List.of(SharedOperator.ARGS));
      args.add("--builtin-kinds=ConfigMap");

      try (OperatorProcess operator = OperatorProcess.start("relist-" + suffix, args,
          Map.of("KUBECONFIG", kubeconfig.toString()))) {
        operator.awaitReady();
        client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
            .withName("owner").withAnnotations(Map.of(SpecNames.PROPAGATION, SpecNames.SYNCHRONOUS,
                SpecNames.TIMEOUT, "10m")).endMetadata().build()).create();
        ConfigMap owner = ObjectAwaits.awaitSyncgcFinalizer(
            () -> client.configMaps().inNamespace(ns.name()).withName("owner").get());
        GenericKubernetesResource dependent = gizmos(group, "v1").inNamespace(ns.name())
            .resource(new GenericKubernetesResourceBuilder().withApiVersion(group + "/v1").withKind("Gizmo")
                .withNewMetadata().withName("dependent").withOwnerReferences(Widgets.ownerReference(owner))
                .withFinalizers(HOLD).endMetadata().build()).create();
        cleanUp.add(0, () -> MetadataPatches.removeFinalizer(
            gizmos(group, "v1").inNamespace(ns.name()).withName("dependent"), HOLD));

        client.configMaps().inNamespace(ns.name()).withName("owner").delete();
        await("the cascade reached the dependent").atMost(DEADLINE).until(() -> {
          GenericKubernetesResource d = gizmos(group, "v1").inNamespace(ns.name()).withName("dependent").get();
          return d != null && d.getMetadata().getDeletionTimestamp() != null;
        });

        // the storage version changes while the operator may not list Gizmos: the kind's informer is
        // replaced by one that cannot list yet, and the dependent is deleted meanwhile
        client.rbac().clusterRoleBindings().withName(gizmoRights).delete();
        awaitListRefused(kubeconfig, group);
        crds.withName(crdName).edit(c -> {
          c.getSpec().setVersions(crd(crdName, group, "v2").getSpec().getVersions());
          return c;
        });
        operator.awaitLog("no permission to list and watch kind=Gizmo." + group + "/v2");
        MetadataPatches.removeFinalizer(gizmos(group, "v2").inNamespace(ns.name()).withName("dependent"), HOLD);
        ObjectAwaits.awaitGone(client, dependent, DEADLINE);
        bind(gizmoRights, operatorName, ns);

        try {
          ObjectAwaits.awaitGone(client, owner, RELIST_DEADLINE);
        } catch (RuntimeException e) {
          throw new AssertionError("the owner still waits for a dependent deleted while the kind's informer was"
              + " replaced: " + client.configMaps().inNamespace(ns.name()).withName("owner").get().getMetadata()
              + "\noperator log: " + operator.logFile(), e);
        }
        assertTrue(operator.isAlive(), "the operator still runs");
      }
    } finally {
      for (Runnable r : cleanUp) {
        try {
          r.run();
        } catch (RuntimeException e) {
          // best effort
        }
      }
      SharedOperator.resume();
    }
  }

  private static ResourceDefinitionContext context(String group, String version) {
    return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind("Gizmo")
        .withPlural("gizmos").withNamespaced(true).build();
  }

  private io.fabric8.kubernetes.client.dsl.MixedOperation<GenericKubernetesResource,
      io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
      io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> gizmos(String group, String version) {
    return client.genericKubernetesResources(context(group, version));
  }

  private void clusterRole(String name, String account, List<PolicyRule> rules, TestNamespace ns,
      List<Runnable> cleanUp) {
    client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata()
        .withRules(rules).build()).create();
    cleanUp.add(() -> client.rbac().clusterRoles().withName(name).delete());
    bind(name, account, ns);
    cleanUp.add(() -> client.rbac().clusterRoleBindings().withName(name).delete());
  }

  /** Binds the ClusterRole of that name (under the same name) to the ServiceAccount {@code account}. */
  private void bind(String name, String account, TestNamespace ns) {
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(name)
        .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
        .addNewSubject().withKind("ServiceAccount").withName(account).withNamespace(ns.name()).endSubject()
        .build()).create();
  }

  private void awaitListRefused(Path kubeconfig, String group) throws Exception {
    try (KubernetesClient as = new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build()) {
      await("the operator may no longer list Gizmos").atMost(DEADLINE).until(() -> {
        try {
          as.genericKubernetesResources(context(group, "v1")).inAnyNamespace().list();
          return false;
        } catch (KubernetesClientException e) {
          return e.getCode() == 403;
        }
      });
    }
  }

  /** Gizmo, served as v1 and v2, stored as {@code storage}; no conversion needed (schemas alike). */
  private static CustomResourceDefinition crd(String name, String group, String storage) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withGroup(group).withScope("Namespaced")
            .withNewNames().withKind("Gizmo").withListKind("GizmoList").withPlural("gizmos")
                .withSingular("gizmo").endNames()
            .withVersions(version("v1", storage.equals("v1")), version("v2", storage.equals("v2")))
        .endSpec().build();
  }

  private static CustomResourceDefinitionVersion version(String name, boolean storage) {
    return new CustomResourceDefinitionVersionBuilder().withName(name).withServed(true).withStorage(storage)
        .withNewSchema().withOpenAPIV3Schema(new JSONSchemaPropsBuilder().withType("object")
            .withXKubernetesPreserveUnknownFields(true).build()).endSchema()
        .build();
  }
}
