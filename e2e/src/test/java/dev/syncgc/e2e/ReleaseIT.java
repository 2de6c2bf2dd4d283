package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorCommand;
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
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code syncgc-operator release} (what the chart's pre-delete hook runs), as a process, with the
 * operator stopped: it honours each object's propagation in force (an Orphan owner under deletion is
 * handed to the API server's orphaning, never to foreground deletion), finds the finalizer on every
 * kind the API server serves (not only the tracked ones), and fails, naming them, when it may not
 * list a kind.
 */
@ExtendWith(TestNamespace.Extension.class)
class ReleaseIT {
  private static final ResourceDefinitionContext POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("syncgc.dev").withVersion("v1alpha1").withKind("GarbageCollectionPolicy")
      .withPlural("garbagecollectionpolicies").withNamespaced(false).build();
  private static final String NAMESPACE_LABEL = "e2e.syncgc.dev/release";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration RELEASE_DEADLINE = Duration.ofSeconds(180);
  /** Kinds the operator of these tests tracks; the release must not need more to find the finalizer. */
  private static final Map<String, String> TRACKED = Map.of("SYNCGC_BUILTIN_KINDS", "ConfigMap");

  private static final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operatorStopped() {
    TestCrds.install(client);
    SharedOperator.pause();
  }

  @AfterAll
  static void operatorBack() {
    SharedOperator.resume();
  }

  // --- case 2: the propagation in force decides

  @Test
  void orphanOwnersUnderDeletionAreHandedToOrphaningAndTheirDependentsSurviveWithoutTheReference(TestNamespace ns) {
    // opted in by annotation, taken in by the operator (which records the propagation in force)
    SharedOperator.resume();
    GenericKubernetesResource annotated = Widgets.create(client, ns.name(), "orphan-by-annotation")
        .annotate(SpecNames.PROPAGATION, SpecNames.ORPHAN).applyAndAwaitFinalizer();
    SharedOperator.pause();
    // opted in by an Orphan policy only, the finalizer set by hand: nothing recorded on the object
    String selector = Namespaces.randomSuffix(10);
    MetadataPatches.label(client.namespaces().withName(ns.name()), NAMESPACE_LABEL, selector);
    String policy = createOrphanPolicy(selector);
    try {
      GenericKubernetesResource byPolicy = Widgets.create(client, ns.name(), "orphan-by-policy")
          .finalizer(FINALIZER).apply();
      ConfigMap first = dependent(ns, "dependent-of-annotated", annotated);
      ConfigMap second = dependent(ns, "dependent-of-policy", byPolicy);
      Widgets.widget(client, ns.name(), "orphan-by-annotation").delete();
      Widgets.widget(client, ns.name(), "orphan-by-policy").delete();
      await("both owners marked as deleted").atMost(DEADLINE).until(() ->
          deleting(Widgets.widget(client, ns.name(), "orphan-by-annotation").get())
              && deleting(Widgets.widget(client, ns.name(), "orphan-by-policy").get()));

      OperatorCommand.Completed released = release("release-orphan", Map.of());
      assertEquals(0, released.exitCode(), "release exit code; output:\n" + released.output());

      await("the owners are gone").atMost(DEADLINE).until(() ->
          Widgets.widget(client, ns.name(), "orphan-by-annotation").get() == null
              && Widgets.widget(client, ns.name(), "orphan-by-policy").get() == null);
      for (ConfigMap d : List.of(first, second)) {
        await(d.getMetadata().getName() + " orphaned").atMost(DEADLINE).until(() -> {
          ConfigMap now = configMap(ns, d.getMetadata().getName());
          return now == null || now.getMetadata().getOwnerReferences().isEmpty();
        });
        ConfigMap now = configMap(ns, d.getMetadata().getName());
        assertNotNull(now, d.getMetadata().getName() + " survives its Orphan owner's deletion; release output:\n"
            + released.output());
        assertEquals(d.getMetadata().getUid(), now.getMetadata().getUid());
        assertNull(now.getMetadata().getDeletionTimestamp(), d.getMetadata().getName() + " is not being deleted");
        assertEquals(List.of(), now.getMetadata().getOwnerReferences(), "the reference to the owner is gone");
      }
    } finally {
      client.genericKubernetesResources(POLICY).withName(policy).delete();
    }
  }

  // --- case 7: every kind, and a kind it may not list is named

  @Test
  void anObjectOfAKindTheOperatorDoesNotTrackIsReleased(TestNamespace ns) {
    Lease alive = client.leases().inNamespace(ns.name()).resource(new LeaseBuilder().withNewMetadata()
        .withName("untracked-alive").withFinalizers(FINALIZER).endMetadata().build()).create();
    client.leases().inNamespace(ns.name()).resource(new LeaseBuilder().withNewMetadata()
        .withName("untracked-deleted").withFinalizers(FINALIZER).endMetadata().build()).create();
    client.leases().inNamespace(ns.name()).withName("untracked-deleted").delete();
    await("marked as deleted").atMost(DEADLINE)
        .until(() -> deleting(client.leases().inNamespace(ns.name()).withName("untracked-deleted").get()));

    OperatorCommand.Completed released = release("release-untracked", Map.of());

    assertEquals(0, released.exitCode(), "release exit code; output:\n" + released.output());
    Lease now = client.leases().inNamespace(ns.name()).withName("untracked-alive").get();
    assertNotNull(now, "a live object is only released");
    assertEquals(alive.getMetadata().getUid(), now.getMetadata().getUid());
    assertTrue(!ObjectAwaits.hasFinalizer(now, FINALIZER), "the syncgc finalizer is gone from a Lease, a kind"
        + " the operator does not track: " + now.getMetadata().getFinalizers() + "\n" + released.output());
    await("the Lease under deletion goes").atMost(DEADLINE)
        .until(() -> client.leases().inNamespace(ns.name()).withName("untracked-deleted").get() == null);
  }

  @Test
  void aKindTheReleaseMayNotListMakesItFailNamingTheKind(TestNamespace ns) throws Exception {
    String name = "release-restricted-" + Namespaces.randomSuffix(6);
    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName(name).endMetadata().build()).create();
    // what the release of an older version needed, and not Leases
    client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata()
        .withRules(
            new PolicyRuleBuilder().withApiGroups("").withResources("configmaps", "namespaces")
                .withVerbs("get", "list", "patch", "delete").build(),
            new PolicyRuleBuilder().withApiGroups("apiextensions.k8s.io").withResources("customresourcedefinitions")
                .withVerbs("get", "list").build(),
            new PolicyRuleBuilder().withApiGroups(TestCrds.GROUP).withResources("*")
                .withVerbs("get", "list", "patch", "delete").build(),
            new PolicyRuleBuilder().withApiGroups("syncgc.dev").withResources("garbagecollectionpolicies")
                .withVerbs("get", "list").build())
        .build()).create();
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(name)
        .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
        .addNewSubject().withKind("ServiceAccount").withName(name).withNamespace(ns.name()).endSubject()
        .build()).create();
    try {
      Path kubeconfig = ServiceAccounts.kubeconfig(client, ns.name(), name);
      OperatorCommand.Completed released = release("release-restricted", Map.of("KUBECONFIG", kubeconfig.toString()));

      assertNotEquals(0, released.exitCode(), "a kind it may not list fails the release; output:\n"
          + released.output());
      String line = released.output().lines().filter(l -> l.contains("could not list"))
          .findFirst().orElseThrow(() -> new AssertionError("no 'could not list' line in:\n" + released.output()));
      assertTrue(line.contains("leases.coordination.k8s.io"), line);
      assertTrue(line.contains("secrets"), line);
      assertTrue(!line.contains("configmaps"), "configmaps could be listed: " + line);
    } finally {
      client.rbac().clusterRoleBindings().withName(name).delete();
      client.rbac().clusterRoles().withName(name).delete();
    }
  }

  // --- helpers

  private static OperatorCommand.Completed release(String name, Map<String, String> env) {
    Map<String, String> all = new LinkedHashMap<>(TRACKED);
    all.putAll(env);
    return OperatorCommand.run(name, List.of("release"), all, RELEASE_DEADLINE);
  }

  private static boolean deleting(HasMetadata o) {
    return o != null && o.getMetadata().getDeletionTimestamp() != null;
  }

  private static ConfigMap dependent(TestNamespace ns, String name, GenericKubernetesResource owner) {
    return client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
        .withName(name).withOwnerReferences(Widgets.ownerReference(owner)).endMetadata().build()).create();
  }

  private static ConfigMap configMap(TestNamespace ns, String name) {
    return client.configMaps().inNamespace(ns.name()).withName(name).get();
  }

  private static String createOrphanPolicy(String selectorValue) {
    String name = "e2e-release-" + Namespaces.randomSuffix(8);
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget")));
    spec.put("namespaceSelector", Map.of("matchLabels", Map.of(NAMESPACE_LABEL, selectorValue)));
    spec.put("propagation", SpecNames.ORPHAN);
    GcPolicies.create(client, name, spec);
    return name;
  }
}
