package dev.syncgc.uninstall;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Before a release: the operator is stopped, else it would put its finalizers back. */
public final class OperatorStop {
  private static final Logger log = LoggerFactory.getLogger(OperatorStop.class);

  private OperatorStop() {}

  /** Scales the operator's Deployment to zero and waits until none of its pods is left. */
  public static void stop(KubernetesClient client, String namespace, String deployment, Duration deadline)
      throws InterruptedException {
    var resource = client.apps().deployments().inNamespace(namespace).withName(deployment);
    var current = resource.get();
    if (current == null) {
      log.info("operator deployment not found namespace={} name={}; nothing to stop", namespace, deployment);
      return;
    }
    resource.scale(0);
    Map<String, String> selector = current.getSpec().getSelector().getMatchLabels();
    long end = System.nanoTime() + deadline.toNanos();
    while (!client.pods().inNamespace(namespace).withLabels(selector).list().getItems().isEmpty()) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("operator pods still running after " + deadline);
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
    log.info("operator stopped namespace={} deployment={}", namespace, deployment);
  }
}
