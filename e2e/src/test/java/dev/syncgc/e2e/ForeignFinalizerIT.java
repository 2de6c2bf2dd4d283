package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A dependent held by another controller's finalizer is waited for, not forced. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class ForeignFinalizerIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void ownerWaitsTerminatingForDependentHeldByForeignFinalizerAndGoesWhenReleased(TestNamespace ns) {
    GenericKubernetesResource owner =
        Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "held-dependent").ownedBy(owner).finalizer(HOLD).apply();

    try {
      Widgets.widget(client, ns.name(), "owner").delete();

      // the cascade reaches the dependent, which the foreign finalizer holds in Terminating
      await("held-dependent Terminating").atMost(DEADLINE).until(() -> {
        GenericKubernetesResource d = Widgets.widget(client, ns.name(), "held-dependent").get();
        return d != null && d.getMetadata().getDeletionTimestamp() != null;
      });
      Event waiting = Events.await(client, owner, "WaitingForDependents");
      assertTrue(waiting.getMessage().contains("held-dependent"),
          "the Event names the dependent: " + waiting.getMessage());
      assertTrue(waiting.getMessage().contains(HOLD),
          "the Event names the finalizer: " + waiting.getMessage());

      // still held: the owner stays, Terminating, for as long as the dependent does
      await("owner stays Terminating while the dependent is held").during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            GenericKubernetesResource o = Widgets.widget(client, ns.name(), "owner").get();
            GenericKubernetesResource d = Widgets.widget(client, ns.name(), "held-dependent").get();
            return o != null && o.getMetadata().getDeletionTimestamp() != null
                && ObjectAwaits.hasFinalizer(o, FINALIZER)
                && d != null && ObjectAwaits.hasFinalizer(d, HOLD);
          });

      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held-dependent"), HOLD);

      await("held-dependent gone").atMost(DEADLINE)
          .until(() -> Widgets.widget(client, ns.name(), "held-dependent").get() == null);
      await("owner gone").atMost(DEADLINE)
          .until(() -> Widgets.widget(client, ns.name(), "owner").get() == null);
    } finally {
      // whatever happened, the namespace must be deletable: no foreign finalizer is left behind
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held-dependent"), HOLD);
    }
  }
}
