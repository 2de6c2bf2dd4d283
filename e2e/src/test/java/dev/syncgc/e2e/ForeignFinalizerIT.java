package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Finalizers;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A dependent held by another controller's finalizer is waited for, not forced. */
@ExtendWith(TestNamespace.Extension.class)
class ForeignFinalizerIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operator() {
    SharedOperator.get();
  }

  @Test
  void ownerWaitsTerminatingForDependentHeldByForeignFinalizerAndGoesWhenReleased(TestNamespace ns) {
    Widgets.create(client, ns.name(), "owner").annotate("syncgc.dev/propagation", "Synchronous").apply();
    GenericKubernetesResource owner =
        Finalizers.awaitSyncgc(() -> Widgets.widget(client, ns.name(), "owner").get());
    Widgets.create(client, ns.name(), "held-dependent").ownedBy(owner).finalizer(HOLD).apply();

    try {
      Widgets.widget(client, ns.name(), "owner").delete();

      // the cascade reaches the dependent, which the foreign finalizer holds in Terminating
      await("held-dependent Terminating").atMost(DEADLINE).until(() -> {
        GenericKubernetesResource d = Widgets.widget(client, ns.name(), "held-dependent").get();
        return d != null && d.getMetadata().getDeletionTimestamp() != null;
      });
      Event waiting = Events.await(client, ns.name(), owner.getMetadata().getUid(), "WaitingForDependents");
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
                && Finalizers.has(o, Finalizers.SYNCGC) && d != null && Finalizers.has(d, HOLD);
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
