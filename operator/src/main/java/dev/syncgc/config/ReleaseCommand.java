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

  @Option(names = "--granted-kinds-only", negatable = true, fallbackValue = "true",
      defaultValue = "${env:SYNCGC_GRANTED_KINDS_ONLY:-false}",
      description = "The chart's restricted mode (env SYNCGC_GRANTED_KINDS_ONLY): this identity, the operator's, may"
          + " list and patch only the kinds it was granted, so a kind it may not list is named in a warning and left"
          + " alone, not a failure. Otherwise every served kind must be listed.")
  boolean grantedKindsOnly;

  @Override
  public Integer call() throws Exception {
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      KubeApi api = new KubeApi(client, new RateLimiter(parent.qps, parent.burst), CallCounts.NONE);
      Uninstall uninstall = new Uninstall(client, api);
      if (!deployment.isBlank() && !namespace.isBlank()) {
        OperatorStop.stop(client, namespace, deployment, Duration.ofMinutes(2));
      }
      // every served kind is looked at, whatever the tracked kinds (an earlier configuration's may
      // still carry the finalizer); a kind that cannot be listed fails the release, except one this
      // identity may not list in the restricted mode (the operator could not have finalized it either)
      return uninstall.run(grantedKindsOnly).complete() ? 0 : 1;
    }
  }
}
