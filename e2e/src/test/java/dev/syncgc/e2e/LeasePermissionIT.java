package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.OperatorCommand;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With {@code --leader-election} a replica must read, create and renew its Lease: one whose
 * ServiceAccount may not is told so at start, naming the grant, instead of running without ever
 * leading (the election's client would only log its refused requests, again and again).
 */
@ExtendWith(TestNamespace.Extension.class)
class LeasePermissionIT {
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aReplicaThatMayNotUseItsLeaseSaysSoAtStartAndExits(TestNamespace ns) throws Exception {
    String name = "no-lease-" + ns.name();
    try {
      // what the operator reads and writes for ConfigMaps, its policies and Events: not Leases
      Path kubeconfig = ServiceAccounts.boundTo(client, ns.name(), name, ServiceAccounts.configMapsOnly());
      OperatorCommand.Completed run = OperatorCommand.run("no-lease", List.of("--leader-election",
          "--leader-election-namespace", ns.name(), "--http-address", "127.0.0.1", "--http-port", "0"),
          Map.of("KUBECONFIG", kubeconfig.toString(), "SYNCGC_BUILTIN_KINDS", "ConfigMap"), EXIT_DEADLINE);

      assertNotEquals(0, run.exitCode(), "it exits; output:\n" + run.output());
      String line = run.output().lines().filter(l -> l.contains("Leases")).findFirst()
          .orElseThrow(() -> new AssertionError("no line naming Leases in:\n" + run.output()));
      assertTrue(line.contains("may not") && line.contains(ns.name()) && line.contains("grant"), line);
    } finally {
      ServiceAccounts.unbind(client, name);
    }
  }
}
