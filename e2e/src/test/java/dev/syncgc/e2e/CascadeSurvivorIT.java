package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.GRACE_PERIOD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.e2e.support.AdmissionPolicies;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A dependent that a cascade put under synchronous deletion and that survives it (its DELETE
 * refused, then another owner adopted it) keeps nothing the cascade wrote on it: a later deletion of
 * its own follows its own settings (it used to keep the owner's grace period as its
 * own {@code syncgc.dev/grace-period-seconds}).
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class CascadeSurvivorIT {
  private static final String POLICY = "e2e-syncgc-undeletable-widgets";

  private static final KubernetesClient client = TestCluster.get().client();
  private static AdmissionPolicies.Policy policy;

  /** A ValidatingAdmissionPolicy refusing every DELETE of a Widget labelled protected. */
  @BeforeAll
  static void refuseDeletes() {
    String ns = Namespaces.create(client, "CascadeSurvivorIT-probe");
    Widgets.create(client, ns, "probe").label(AdmissionPolicies.PROTECTED, "true").apply();
    policy = AdmissionPolicies.denyDeleteOfProtected(client, POLICY, TestCrds.GROUP, "widgets", null,
        () -> AdmissionPolicies.refused(() -> Widgets.widget(client, ns, "probe").dryRun().delete()));
    Namespaces.deleteAsync(client, ns);
  }

  @AfterAll
  static void allowDeletes() {
    if (policy != null) {
      policy.close();
    }
  }

  @Test
  void aSurvivorOfACascadeKeepsNothingTheCascadeWroteOnIt(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(GRACE_PERIOD, "7").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(owner)
        .label(AdmissionPolicies.PROTECTED, "true").apply();
    Widgets.create(client, ns.name(), "leaf").ownedBy(mid).apply();

    Widgets.widget(client, ns.name(), "owner").delete();
    await("mid finalized by the cascade").atMost(SETUP_DEADLINE).until(() -> Widgets.reload(client, mid)
        .getMetadata().getFinalizers().contains(FINALIZER));

    GenericKubernetesResource keeper = Widgets.create(client, ns.name(), "keeper").apply();
    Widgets.widget(client, ns.name(), "mid").edit(m -> {
      List<OwnerReference> refs = new java.util.ArrayList<>(m.getMetadata().getOwnerReferences());
      refs.add(Widgets.ownerReference(keeper));
      m.getMetadata().setOwnerReferences(refs);
      return m;
    });

    ObjectAwaits.awaitGone(client, owner, Duration.ofSeconds(60));
    await("mid keeps nothing of the cascade").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      GenericKubernetesResource now = Widgets.reload(client, mid);
      assertNull(now.getMetadata().getDeletionTimestamp(), "mid survives");
      assertEquals(List.of(), now.getMetadata().getFinalizers());
      Map<String, String> annotations = now.getMetadata().getAnnotations() == null ? Map.of()
          : now.getMetadata().getAnnotations();
      assertEquals(List.of(), annotations.keySet().stream().filter(k -> k.startsWith("syncgc.dev/")).toList());
    });
  }
}
