package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.LeaseReplicas;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The GarbageCollectionPolicy CRD created after the operator started, with and without leader
 * election: the operator starts without it (and says that policies are not served yet), and a policy
 * created once the CRD is Established opts an owner in within 10 s (SPEC.md: a kind that appears later
 * is tracked within 10 s; then the finalizer's p99 of 2 s), whose synchronous cascade then runs
 * (the dependent gone before the owner: syncgc's order, not the built-in collector's). Then the CRD is
 * deleted and created again while the operator runs, and the same holds. The CRD is applied again at
 * the end, whatever happened, for the tests that follow.
 */
@ExtendWith(TestNamespace.Extension.class)
class LatePolicyCrdIT {
  private static final String CRD = "garbagecollectionpolicies.syncgc.dev";
  private static final Duration SERVED_DEADLINE = Duration.ofSeconds(12);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String NAMESPACE_LABEL = "e2e.syncgc.dev/late-policy-crd";
  private final KubernetesClient client = TestCluster.get().client();
  /** The CRD as the test found it, created again as it was. */
  private static CustomResourceDefinition original;

  /** Once for the class: each test pauses it, and a restart between them would only cost time. */
  @AfterAll
  static void resumeSharedOperator() {
    SharedOperator.resume();
  }

  /** With leader election, one replica (on a Lease of its own): it starts, leads, and serves the CRD. */
  @ParameterizedTest(name = "leader election {0}")
  @ValueSource(booleans = {false, true})
  void aPolicyCrdCreatedAfterTheStartIsServedWithinTenSeconds(boolean leaderElection, TestNamespace ns) {
    SharedOperator.pause(); // before the CRD goes: the shared operator is not what is tested
    String lease = "syncgc-e2e-" + Namespaces.randomSuffix(8);
    List<String> args = new ArrayList<>(List.of(SharedOperator.ARGS));
    if (leaderElection) {
      args.addAll(List.of("--leader-election", "--leader-election-namespace", LeaseReplicas.NAMESPACE,
          "--leader-election-lease-name", lease, "--leader-election-lease-duration", LeaseReplicas.LEASE_DURATION));
    }
    try {
      deleteCrd();
      try (OperatorProcess operator = OperatorProcess.start("late-policy-crd-" + (leaderElection ? lease : "alone"),
          args, Map.of())) {
        operator.awaitReady();
        if (leaderElection) {
          await("Lease " + lease + " held by " + operator.leaderElectionIdentity()).atMost(DEADLINE)
              .pollInterval(Duration.ofMillis(200)).until(() -> operator.leaderElectionIdentity().equals(holder(lease)));
          operator.awaitLog("leading: starting workers");
        }
        assertServedTwice(ns, operator);
      }
    } finally {
      applyCrd();
      client.leases().inNamespace(LeaseReplicas.NAMESPACE).withName(lease).delete();
    }
  }

  private String holder(String lease) {
    Lease l = client.leases().inNamespace(LeaseReplicas.NAMESPACE).withName(lease).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  /**
   * The CRD created after the start is served; then, deleted and created again while the operator
   * runs, it is served again.
   */
  private void assertServedTwice(TestNamespace ns, OperatorProcess operator) {
    String label = Namespaces.randomSuffix(10);
    MetadataPatches.label(client.namespaces().withName(ns.name()), NAMESPACE_LABEL, label);
    assertPolicyCascade(ns.name(), label, "created");
    operator.awaitLog("policies are not served"); // said at its start, before the CRD existed
    deleteCrd();
    assertPolicyCascade(ns.name(), label, "recreated");
  }

  /** With an operator running and acting: the CRD, a policy, an owner it opts in, the cascade. */
  private void assertPolicyCascade(String n, String label, String step) {
    Instant established = applyCrd();
    String policy = "e2e-late-crd-" + step + "-" + Namespaces.randomSuffix(8);
    try {
      createPolicy(policy, Map.of(
          "kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget")),
          "namespaceSelector", Map.of("matchLabels", Map.of(NAMESPACE_LABEL, label)),
          "propagation", SYNCHRONOUS));
      String owner = step + "-owner";
      String dependent = step + "-dependent";
      Widgets.create(client, n, owner).apply();
      Duration left = Duration.between(Instant.now(), established.plus(SERVED_DEADLINE));
      GenericKubernetesResource opted = ObjectAwaits.awaitFinalizer(() -> Widgets.widget(client, n, owner).get(),
          FINALIZER, true, left.isNegative() ? Duration.ZERO : left);
      System.out.printf("LatePolicyCrdIT: owner opted in by the policy %d ms after the CRD was Established (%s)%n",
          Duration.between(established, Instant.now()).toMillis(), step);
      Widgets.create(client, n, dependent).ownedBy(opted).apply();
      try (DeletionOrder order = DeletionOrder.widgets(client, n)) {
        Widgets.widget(client, n, owner).delete();
        order.awaitDeleted(DEADLINE, owner, dependent);
        order.checkWatches();
        order.assertBefore(dependent, owner);
      }
    } finally {
      client.genericKubernetesResources(PolicyIT.POLICY).withName(policy).delete();
    }
  }

  /** Creates the policy, retrying while the API server does not serve the just Established CRD yet. */
  private void createPolicy(String name, Map<String, Object> spec) {
    await("policy " + name + " created").atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
        .ignoreExceptionsMatching(e -> e instanceof KubernetesClientException k && k.getCode() == 404)
        .until(() -> {
          GcPolicies.create(client, name, spec);
          return true;
        });
  }

  private Resource<CustomResourceDefinition> crd() {
    return client.apiextensions().v1().customResourceDefinitions().withName(CRD);
  }

  private void deleteCrd() {
    if (original == null) {
      original = crd().get();
    }
    crd().delete();
    await("CRD " + CRD + " gone").atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
        .until(() -> crd().get() == null);
  }

  /**
   * Creates the CRD as it was before the test ({@link #deleteCrd}: its spec, labels and annotations,
   * e.g. a Helm release's), else from crds/ (as TestCluster applies it), unless it exists; waits until
   * it is Established and returns when it was seen so.
   */
  private Instant applyCrd() {
    await("CRD " + CRD + " not being deleted").atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
        .until(() -> crd().get() == null || crd().get().getMetadata().getDeletionTimestamp() == null);
    if (crd().get() == null) {
      if (original != null) {
        crd().create(new CustomResourceDefinitionBuilder().withNewMetadata().withName(CRD)
            .withLabels(original.getMetadata().getLabels()).withAnnotations(original.getMetadata().getAnnotations())
            .endMetadata().withSpec(original.getSpec()).build());
      } else {
        Path file = TestCluster.repoRoot().resolve("crds").resolve(CRD + "-v1.yml");
        try (InputStream in = Files.newInputStream(file)) {
          client.load(in).forceConflicts().serverSideApply();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    await("CRD " + CRD + " Established").atMost(DEADLINE).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          CustomResourceDefinition c = crd().get();
          return c != null && c.getStatus() != null && c.getStatus().getConditions().stream()
              .anyMatch(k -> "Established".equals(k.getType()) && "True".equals(k.getStatus()));
        });
    return Instant.now();
  }
}
