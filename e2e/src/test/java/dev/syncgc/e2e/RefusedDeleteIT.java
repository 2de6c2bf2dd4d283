package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.AdmissionPolicies;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 32 case 1, end to end: an admission policy refuses the DELETE of one dependent (a
 * ValidatingAdmissionPolicy with validationActions Deny, as Kyverno, Gatekeeper or a "protected" label
 * do). The owner is not held past its deadline: it goes at its {@code syncgc.dev/timeout}, its
 * {@code SynchronousDeletionTimedOut} names the dependent with the API server's message, and the
 * refused DELETE is sent again only with backoff. It used to be read as a 422 conflict: the owner was
 * still held 80 s after a 15 s deadline, "deletion requested" named as the blocker.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class RefusedDeleteIT {
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aRefusedDeleteIsNamedAndNeverHoldsTheOwnerPastItsDeadline(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(TIMEOUT, "15s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    Widgets.create(client, ns.name(), "protected").ownedBy(owner).label(AdmissionPolicies.PROTECTED, "true").apply();
    Widgets.create(client, ns.name(), "plain").ownedBy(owner).apply();
    Widgets.create(client, ns.name(), "probe").label(AdmissionPolicies.PROTECTED, "true").apply();

    try (var policy = AdmissionPolicies.denyDeleteOfProtected(client, "e2e-syncgc-" + ns.name(), TestCrds.GROUP,
        "widgets", ns.name(), () -> AdmissionPolicies.refused(() -> Widgets.widget(client, ns.name(), "probe")
            .dryRun().delete()))) {
      double refusedBefore = refusedDeletes();
      Instant deleted = Instant.now();
      Widgets.widget(client, ns.name(), "owner").delete();

      Event waiting = Events.awaitContaining(client, owner, "Normal", "WaitingForDependents", AdmissionPolicies.MESSAGE);
      assertTrue(waiting.getMessage().contains("protected"), waiting.getMessage());
      await("the owner goes at its deadline").atMost(Duration.ofSeconds(45))
          .until(() -> Widgets.widget(client, ns.name(), "owner").get() == null);
      Duration took = Duration.between(deleted, Instant.now());
      Event timedOut = Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut",
          AdmissionPolicies.MESSAGE);
      assertTrue(timedOut.getMessage().contains("Widget/" + ns.name() + "/protected"), timedOut.getMessage());
      assertNotNull(Widgets.widget(client, ns.name(), "protected").get(), "the policy keeps it");
      await("the plain dependent is gone").atMost(Duration.ofSeconds(10))
          .until(() -> Widgets.widget(client, ns.name(), "plain").get() == null);
      double refused = refusedDeletes() - refusedBefore;
      System.out.printf("refused DELETE: owner gone after %d ms (timeout 15 s), %.0f refused DELETEs sent%n",
          took.toMillis(), refused);
      assertTrue(refused >= 1 && refused <= 12, "refused DELETEs sent again only with backoff: " + refused);
    }
  }

  private double refusedDeletes() {
    Metrics m = Metrics.parse(SharedOperator.get().metrics());
    return m.sum("syncgc_api_requests_total", Map.of("verb", "delete", "code", "422")).orElse(0);
  }
}
