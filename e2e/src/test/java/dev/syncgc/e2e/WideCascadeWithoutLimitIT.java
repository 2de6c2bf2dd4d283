package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.WideConfigMaps;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A wide cascade with no client-side limit sends as many DELETEs at once as the workers allow, while
 * a watch of every served kind stays open. On one HTTP/2 connection the JDK's client fails every
 * request beyond the server's 250 concurrent streams ("too many concurrent streams": 41,784 failed
 * DELETEs for 10,000 dependents in the benchmark) instead of opening another connection, so the
 * watches have a connection of their own. Every call must get an answer: none counted with code 0.
 */
@ExtendWith(TestNamespace.Extension.class)
class WideCascadeWithoutLimitIT {
  private static final int DEPENDENTS = 3_000;
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void everyCallOfAWideCascadeWithoutClientLimitGetsAnAnswer(TestNamespace ns) throws Exception {
    SharedOperator.pause();
    try (OperatorProcess operator = OperatorProcess.start("wide-unlimited",
        List.of("--kube-api-qps", "0", "--namespaces", ns.name()), Map.of())) {
      operator.awaitReady();
      ConfigMap root = WideConfigMaps.create(client, ns.name(), DEPENDENTS);

      client.configMaps().inNamespace(ns.name()).withName("root").delete();
      ObjectAwaits.awaitGone(client, root, Duration.ofMinutes(5));

      assertEquals(0, WideConfigMaps.left(client, ns.name()), "every dependent went first");
      String metrics = operator.metrics();
      assertEquals(0.0, Metrics.parse(metrics).sum("syncgc_api_requests_total", Map.of("code", "0")).orElse(0.0),
          "calls without an answer: " + metrics.lines().filter(l -> l.startsWith("syncgc_api_requests_total")).toList());
    }
  }
}
