package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.AdmissionPolicies;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.RefusingWebhook;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * End to end: an admission policy refuses the DELETE of one dependent (a
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
        .annotate(TIMEOUT, "8s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
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
      System.out.printf("refused DELETE: owner gone after %d ms (timeout 8 s), %.0f refused DELETEs sent%n",
          took.toMillis(), refused);
      assertTrue(refused >= 1 && refused <= 20, "refused DELETEs sent again only with backoff: " + refused);
    }
  }

  /**
   * An admission webhook that refuses with 409, as Crossplane's {@code Usage} webhook does (its reason
   * even says Conflict): a refusal in the API server's words, not a conflict to plan again on, so the
   * owner goes at its deadline with the webhook's message named. It used to be read as a conflict and
   * retried unrecorded: the owner was still there 75 s later, no Event, nothing in the log. Once the
   * refusal is lifted, the dependent left at the deadline is deleted (SPEC: the remaining dependents
   * are still deleted afterwards), by syncgc itself where kube-controller-manager runs no collector.
   */
  @Test
  void aWebhooksRefusalWith409IsARefusalAndWhatItLeftGoesOnceLifted(TestNamespace ns) throws Exception {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(TIMEOUT, "6s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    Widgets.create(client, ns.name(), "in-use").ownedBy(owner).label(AdmissionPolicies.PROTECTED, "true").apply();
    Widgets.create(client, ns.name(), "plain").ownedBy(owner).apply();
    Widgets.create(client, ns.name(), "probe").label(AdmissionPolicies.PROTECTED, "true").apply();

    Instant deleted;
    try (var webhook = RefusingWebhook.deny(client, "e2e-syncgc-" + ns.name(), TestCrds.GROUP, "widgets", ns.name(),
        409, "Conflict", () -> refusedWith409(() -> Widgets.widget(client, ns.name(), "probe").dryRun().delete()))) {
      deleted = Instant.now();
      Widgets.widget(client, ns.name(), "owner").delete();
      await("the plain dependent is gone").atMost(Duration.ofSeconds(10))
          .until(() -> Widgets.widget(client, ns.name(), "plain").get() == null);
      Event waiting = Events.awaitContaining(client, owner, "Normal", "WaitingForDependents", RefusingWebhook.MESSAGE);
      assertTrue(waiting.getMessage().contains("denied the request"), waiting.getMessage());
      await("the owner goes at its deadline").atMost(Duration.ofSeconds(30))
          .until(() -> Widgets.widget(client, ns.name(), "owner").get() == null);
      Event timedOut = Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut",
          RefusingWebhook.MESSAGE);
      assertTrue(timedOut.getMessage().contains("Widget/" + ns.name() + "/in-use"), timedOut.getMessage());
      assertNotNull(Widgets.widget(client, ns.name(), "in-use").get(), "the webhook keeps it");
      System.out.printf("webhook 409: owner gone after %d ms (timeout 6 s), %d DELETEs denied%n",
          Duration.between(deleted, Instant.now()).toMillis(), webhook.denied());
      assertTrue(webhook.denied() <= 20, "refused DELETEs sent again only with backoff: " + webhook.denied());
    }
    await("what the deadline left is deleted once the refusal is lifted").atMost(Duration.ofSeconds(60))
        .until(() -> Widgets.widget(client, ns.name(), "in-use").get() == null);
  }

  private static boolean refusedWith409(Runnable delete) {
    try {
      delete.run();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 409 && e.getMessage().contains("denied the request");
    }
  }

  private double refusedDeletes() {
    Metrics m = Metrics.parse(SharedOperator.get().metrics());
    return m.sum("syncgc_api_requests_total", Map.of("verb", "delete", "code", "422")).orElse(0);
  }
}
