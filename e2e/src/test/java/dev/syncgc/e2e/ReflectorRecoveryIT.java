package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reflectors come back on their own after the API server restarts (its watch cache starts anew,
 * so a watch resumed from an older version may be answered 410 and relisted): a synchronous deletion
 * afterwards still waits for a dependent created after the restart, and then completes.
 */
@ExtendWith(TestNamespace.Extension.class)
class ReflectorRecoveryIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aSynchronousDeletionAfterAnApiServerRestartWaitsForItsDependents(TestNamespace ns) throws Exception {
    SharedOperator.pause();
    List<String> args = new ArrayList<>(List.of(SharedOperator.ARGS));
    args.add("--builtin-kinds=ConfigMap");
    try (OperatorProcess operator = OperatorProcess.start("reflector-recovery", args, Map.of())) {
      operator.awaitReady();
      var configMaps = client.configMaps().inNamespace(ns.name());
      configMaps.resource(new ConfigMapBuilder().withNewMetadata().withName("owner").withAnnotations(Map.of(
          SpecNames.PROPAGATION, SpecNames.SYNCHRONOUS, SpecNames.TIMEOUT, "10m")).endMetadata().build()).create();
      ConfigMap owner = ObjectAwaits.awaitSyncgcFinalizer(() -> configMaps.withName("owner").get());

      ProcessRunner.run(List.of("bash", TestCluster.repoRoot().resolve("e2e/cluster.sh").toString(),
          "restart-apiserver"), Map.of(), Duration.ofMinutes(3)).assertOk();
      await("the API server is back").atMost(DEADLINE).ignoreExceptions()
          .until(() -> configMaps.withName("owner").get() != null);

      // created after the restart: only a reflector that came back sees it
      configMaps.resource(new ConfigMapBuilder().withNewMetadata().withName("dependent").withFinalizers(HOLD)
          .withOwnerReferences(Widgets.ownerReference(owner)).endMetadata().build()).create();
      try {
        configMaps.withName("owner").delete();
        await("the cascade reached the dependent").atMost(DEADLINE).until(() -> {
          ConfigMap d = configMaps.withName("dependent").get();
          return d != null && d.getMetadata().getDeletionTimestamp() != null;
        });
        assertNotNull(configMaps.withName("owner").get(), "the owner waits for its dependent");
      } finally {
        MetadataPatches.removeFinalizer(configMaps.withName("dependent"), HOLD);
      }
      await("the owner goes once its dependent is gone").atMost(DEADLINE)
          .until(() -> configMaps.withName("owner").get() == null);
    } finally {
      SharedOperator.resume();
    }
  }
}
