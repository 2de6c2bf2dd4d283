package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.WideConfigMaps;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator paused (SIGSTOP: a frozen VM or node, a very long GC) in the middle of a
 * cascade, while the owner is asked to orphan its dependents. When it runs again, everything it knows is
 * as old as the pause; its workers must not act on it (a plan's calls used to go on for up to 5 s, on a
 * graph that had not seen the orphan request yet). It stops writing from the first moment after the
 * pause and exits, to start again with a fresh view. Dependents deleted after it ran again are judged
 * from etcd revisions: only calls already on their way when it was stopped may land. (Measured on
 * loopback: 0-7 with the pause watch, 1 without: there its watch delivers the orphan request within
 * milliseconds of SIGCONT and the send-time check stops the rest; what the pause watch adds, and this
 * test tells apart, is that no new decision is taken on the old view and the process starts afresh.)
 */
@ExtendWith(TestNamespace.Extension.class)
class PausedOperatorIT {
  private static final int DEPENDENTS = 2_000;
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aPausedOperatorWritesNothingOnItsOldViewAndExits(TestNamespace ns) throws Exception {
    BuiltInCollector.assumeRunning("its orphaning of the dependents once the orphan finalizer is on the owner");
    SharedOperator.pause();
    try (OperatorProcess operator = OperatorProcess.start("paused",
        List.of("--kube-api-qps", "0", "--namespaces", ns.name()), Map.of())) {
      operator.awaitReady();
      WideConfigMaps.create(client, ns.name(), DEPENDENTS);
      try (DeletionOrder order = DeletionOrder.of(client.configMaps().inNamespace(ns.name()))) {
        client.configMaps().inNamespace(ns.name()).withName("root").delete();
        await("the cascade is under way").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
            .until(() -> order.deletions().size() >= 100);
        int logBefore = operator.log().length(); // the log file holds earlier runs of this name too
        signal("STOP", operator.pid());
        int atStop = order.deletions().size();
        long orphanedAt = Long.parseLong(WideConfigMaps.orphanRequest(client, ns.name()).getMetadata()
            .getResourceVersion());
        Thread.sleep(7_000); // past the operator's pause limit (5 s)
        // a revision just before it runs again: a deletion above it was sent after the pause
        long resumedAt = Long.parseLong(client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("mark").endMetadata().build()).create().getMetadata().getResourceVersion());
        signal("CONT", operator.pid());
        Thread.sleep(5_000); // what it does on its old view, if anything, it does now
        long afterResume = order.deletions().stream().filter(d -> d.name().startsWith("d-"))
            .filter(d -> d.resourceVersion() > resumedAt).count();
        System.out.printf("paused operator: %d dependents deleted after it ran again (within 5 s)%n", afterResume);
        // a call that passed its check just before the SIGSTOP may still be in the HTTP client's queue and go
        // out after it: at most the 64 calls in flight; no call is decided after it (none passes the check)
        assertTrue(afterResume <= 64, afterResume + " deletions sent after the pause");
        await("the paused operator exits").atMost(Duration.ofSeconds(60)).until(() -> !operator.isAlive());
        String pausedLog = operator.log().substring(logBefore);
        operator.restart(); // as the kubelet restarts the container
        await("the owner is orphaned and goes").atMost(Duration.ofSeconds(60))
            .until(() -> client.configMaps().inNamespace(ns.name()).withName("root").get() == null);
        long after = order.deletions().stream().filter(d -> d.name().startsWith("d-"))
            .filter(d -> d.resourceVersion() > orphanedAt).count();
        System.out.printf("paused operator: %d deletions seen when it was stopped, %d dependents deleted after the"
            + " orphan request, %d left; log: %s%n", atStop, after, WideConfigMaps.left(client, ns.name()),
            pausedLog.lines().filter(l -> l.contains("paused for")).findFirst().orElse("(no pause line)"));
        assertTrue(pausedLog.contains("this process was paused for"), "it says why it exits");
        assertTrue(after <= 64, after + " dependents deleted after the orphan request (bound: the 64 calls"
            + " that may have been on their way when it was stopped)");
      } finally {
        signal("CONT", operator.pid());
      }
    }
  }

  private static void signal(String name, long pid) throws Exception {
    new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
  }
}
