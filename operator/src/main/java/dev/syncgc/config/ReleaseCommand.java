package dev.syncgc.config;

import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.uninstall.Uninstall;
import dev.syncgc.uninstall.OperatorStop;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code syncgc-operator release}: what the chart's pre-delete hook runs. */
@Command(name = "release", mixinStandardHelpOptions = true,
    description = "Stop the operator and remove the syncgc finalizer from every object (uninstall).")
public class ReleaseCommand implements Callable<Integer> {
  @ParentCommand OperatorConfig parent;

  @Option(names = "--operator-deployment", defaultValue = "${env:SYNCGC_OPERATOR_DEPLOYMENT:-}",
      description = "Deployment of the operator to scale to zero first (env SYNCGC_OPERATOR_DEPLOYMENT).")
  String deployment;

  @Option(names = "--operator-namespace", defaultValue = "${env:POD_NAMESPACE:-}",
      description = "Its namespace (env POD_NAMESPACE).")
  String namespace;

  @Override
  public Integer call() throws Exception {
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      KubeApi api = new KubeApi(client, new RateLimiter(parent.qps, parent.burst), CallCounts.NONE);
      Uninstall uninstall = new Uninstall(client, api);
      if (!deployment.isBlank() && !namespace.isBlank()) {
        OperatorStop.stop(client, namespace, deployment, Duration.ofMinutes(2));
      }
      // every served kind is looked at, whatever the tracked kinds (an earlier configuration's may
      // still carry the finalizer); a kind that cannot be listed fails the release
      return uninstall.run().complete() ? 0 : 1;
    }
  }
}
