package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.syncgc.core.model.Names;
import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.LeaseReplicas;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica that takes the Lease over decides with the policies in force, not with those it loaded
 * at its start: as a standby its policy reconciler does not run, and Java Operator SDK drops the
 * deletions it sees meanwhile. Two owners opted in by policies turn Orphan while the standby waits,
 * one by a change of its policy, one by the deletion of the higher-priority Synchronous policy that
 * decided for it; they are deleted while nobody leads, and the new leader must orphan their
 * dependents.
 */
@ExtendWith(TestNamespace.Extension.class)
class PolicyFailoverIT {
  private static final String LABEL = "e2e.syncgc.dev/failover";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** After SIGKILL the Lease must expire before the standby may take it ({@link LeaseReplicas#LEASE_DURATION}). */
  private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(90);
  private static final Duration STEADY = Duration.ofSeconds(3);

  private final KubernetesClient client = TestCluster.get().client();
  private final List<String> policies = new ArrayList<>();

  @AfterEach
  void deletePolicies() {
    policies.forEach(name -> client.genericKubernetesResources(PolicyIT.POLICY).withName(name).delete());
    policies.clear();
  }

  @Test
  void aReplicaTakingTheLeaseOverOrphansByThePoliciesInForceNotByThoseOfItsStart(TestNamespace ns) {
    String suffix = Namespaces.randomSuffix(8);
    String changedLabel = "changed-" + suffix;
    String deletedLabel = "deleted-" + suffix;
    // in force before the replicas start, so that each loads them at its start
    String changed = createPolicy("e2e-failover-changed-" + suffix, changedLabel, SpecNames.SYNCHRONOUS, 0);
    createPolicy("e2e-failover-orphan-" + suffix, deletedLabel, SpecNames.ORPHAN, 0);
    String winning = createPolicy("e2e-failover-sync-" + suffix, deletedLabel, SpecNames.SYNCHRONOUS, 10);

    try (LeaseReplicas replicas = LeaseReplicas.start(client, "policy-failover")) {
      OperatorProcess leader = replicas.awaitHolder(DEADLINE);
      OperatorProcess standby = replicas.other(leader);
      // the standby has seen the leader, so its start (with the policies of that moment) is over
      standby.awaitLog("leader is " + leader.leaderElectionIdentity());

      GenericKubernetesResource changedOwner = createOwner(ns, "changed-owner", changedLabel);
      GenericKubernetesResource deletedOwner = createOwner(ns, "deleted-owner", deletedLabel);
      GenericKubernetesResource changedDependent =
          Widgets.create(client, ns.name(), "changed-dependent").ownedBy(changedOwner).apply();
      GenericKubernetesResource deletedDependent =
          Widgets.create(client, ns.name(), "deleted-dependent").ownedBy(deletedOwner).apply();

      client.genericKubernetesResources(PolicyIT.POLICY).withName(changed).edit(p -> {
        spec(p).put("propagation", SpecNames.ORPHAN);
        return p;
      });
      client.genericKubernetesResources(PolicyIT.POLICY).withName(winning).delete();
      // the leader's decision shows that the policies in force now orphan both owners
      awaitRecorded(changedOwner, SpecNames.ORPHAN);
      awaitRecorded(deletedOwner, SpecNames.ORPHAN);

      leader.kill();
      Widgets.widget(client, ns.name(), "changed-owner").delete();
      Widgets.widget(client, ns.name(), "deleted-owner").delete();
      assertEquals(leader.leaderElectionIdentity(), replicas.holder(),
          "the owners were deleted while the killed leader's Lease had not expired: the new leader's first decisions");

      replicas.awaitHolderIs(standby, TAKEOVER_DEADLINE);
      ObjectAwaits.awaitGone(client, changedOwner, DEADLINE);
      ObjectAwaits.awaitGone(client, deletedOwner, DEADLINE);
      assertAll("the new leader orphaned by the policies in force (log: " + standby.logFile() + ")",
          () -> assertSurvivesOrphaned(changedDependent, "its policy was changed to Orphan"),
          () -> assertSurvivesOrphaned(deletedDependent, "the Synchronous policy that decided was deleted"),
          () -> assertNoCascade(changedOwner),
          () -> assertNoCascade(deletedOwner));
    }
  }

  // --- helpers

  private String createPolicy(String name, String labelValue, String propagation, int priority) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget")));
    spec.put("selector", Map.of("matchLabels", Map.of(LABEL, labelValue)));
    spec.put("propagation", propagation);
    spec.put("priority", priority);
    policies.add(name);
    GcPolicies.create(client, name, spec);
    return name;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource policy) {
    return (Map<String, Object>) policy.getAdditionalProperties().get("spec");
  }

  /** An owner opted in by the policies alone, finalized as Synchronous by the leader. */
  private GenericKubernetesResource createOwner(TestNamespace ns, String name, String labelValue) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), name).label(LABEL, labelValue)
        .applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    return awaitRecorded(owner, SpecNames.SYNCHRONOUS);
  }

  /** Waits until the leader has recorded {@code propagation} as the one in force on {@code owner}. */
  private GenericKubernetesResource awaitRecorded(HasMetadata owner, String propagation) {
    AtomicReference<GenericKubernetesResource> last = new AtomicReference<>();
    try {
      await(owner.getMetadata().getName() + " recorded as " + propagation).atMost(DEADLINE)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            GenericKubernetesResource now = ObjectAwaits.current(client, owner);
            last.set(now);
            return now != null && now.getMetadata().getAnnotations() != null
                && propagation.equals(now.getMetadata().getAnnotations().get(Names.LAST_VALID_PROPAGATION));
          });
    } catch (RuntimeException e) {
      throw new AssertionError(owner.getMetadata().getName() + " not recorded as " + propagation + ": "
          + (last.get() == null ? "gone" : last.get().getMetadata().getAnnotations()), e);
    }
    return last.get();
  }

  private void assertSurvivesOrphaned(HasMetadata dependent, String why) {
    String name = dependent.getMetadata().getName();
    AtomicReference<GenericKubernetesResource> last = new AtomicReference<>();
    try {
      await(name + " survives, orphaned").during(STEADY).atMost(STEADY.plusSeconds(10))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> {
            GenericKubernetesResource now = ObjectAwaits.current(client, dependent);
            last.set(now);
            return now != null && now.getMetadata().getDeletionTimestamp() == null
                && now.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList().isEmpty();
          });
    } catch (RuntimeException e) {
      throw new AssertionError(name + " must survive without its owner reference (" + why + "), but it is "
          + (last.get() == null ? "deleted"
              : "there with deletionTimestamp " + last.get().getMetadata().getDeletionTimestamp()
              + " and owners " + last.get().getMetadata().getOwnerReferences()), e);
    }
  }

  private void assertNoCascade(HasMetadata owner) {
    List<String> reasons = Events.bySyncgc(client, owner).stream().map(e -> e.getReason()).toList();
    assertFalse(reasons.contains("SynchronousDeletionStarted"),
        owner.getMetadata().getName() + ": no synchronous cascade; Events: " + reasons);
  }
}
