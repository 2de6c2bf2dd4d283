package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.RollableScalableResource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The operator as the chart runs it: the Deployment that {@code e2e/kind.sh up} installed with
 * {@code helm install}, its Pods on a real kubelet, its metrics read through its Service (via the
 * API server's service proxy). Chosen by {@code SYNCGC_E2E_OPERATOR=chart}.
 */
public final class InClusterOperator implements RunningOperator {
  public static final String NAMESPACE = "syncgc-system";
  public static final String DEPLOYMENT = "syncgc";
  private static final String METRICS_SERVICE = "syncgc-metrics:http-metrics";
  private static final Duration READY_DEADLINE = Duration.ofMinutes(3);

  private final KubernetesClient client;

  InClusterOperator(KubernetesClient client) {
    this.client = client;
  }

  /** True when the suite runs against the chart's in-cluster operator ({@code SYNCGC_E2E_OPERATOR=chart}). */
  public static boolean selected() {
    String mode = TestCluster.setting("SYNCGC_E2E_OPERATOR");
    if (mode == null || mode.equals("process")) {
      return false;
    }
    if (!mode.equals("chart")) {
      throw new IllegalStateException("SYNCGC_E2E_OPERATOR must be 'process' or 'chart', not '" + mode + "'");
    }
    return true;
  }

  private RollableScalableResource<Deployment> deployment() {
    return client.apps().deployments().inNamespace(NAMESPACE).withName(DEPLOYMENT);
  }

  /** The Deployment's Pods, as its selector names them. */
  public List<Pod> pods() {
    Deployment d = deployment().get();
    if (d == null) {
      throw new IllegalStateException("no Deployment " + NAMESPACE + "/" + DEPLOYMENT
          + ": install the chart first (e2e/kind.sh up)");
    }
    Map<String, String> selector = d.getSpec().getSelector().getMatchLabels();
    return client.pods().inNamespace(NAMESPACE).withLabels(selector).list().getItems();
  }

  /** Scales the Deployment to {@code replicas} and waits until that many Pods are Ready (and no other Pod is left). */
  public InClusterOperator scaleAndAwait(int replicas) {
    deployment().scale(replicas);
    try {
      await("operator Deployment at " + replicas + " ready replica(s)").atMost(READY_DEADLINE)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> {
            List<Pod> pods = pods();
            return pods.size() == replicas && pods.stream().allMatch(InClusterOperator::isReady);
          });
    } catch (RuntimeException e) {
      throw new AssertionError("the in-cluster operator did not reach " + replicas + " ready replica(s): "
          + describe(), e);
    }
    return this;
  }

  /**
   * Kills the ready Pod at once (deleted with no grace period, as a lost node would leave it) and
   * waits until it is gone; the Deployment starts a new one. Returns the killed Pod's name.
   */
  public String killReadyPod() {
    String name = pods().stream().filter(InClusterOperator::isReady).findFirst()
        .map(p -> p.getMetadata().getName())
        .orElseThrow(() -> new AssertionError("no ready operator Pod to kill: " + describe()));
    killPod(name);
    return name;
  }

  /** Kills the Pod {@code name} at once (no grace period) and waits until it is gone. */
  public void killPod(String name) {
    client.pods().inNamespace(NAMESPACE).withName(name).withGracePeriod(0).delete();
    await("operator Pod " + name + " gone").atMost(READY_DEADLINE).pollInterval(Duration.ofMillis(100))
        .until(() -> pods().stream().noneMatch(p -> p.getMetadata().getName().equals(name)));
  }

  /**
   * {@code helm upgrade} of the release {@code e2e/kind.sh} installed, its values kept but for
   * {@code sets} ({@code key=value}); waits until the rolled-out operator is ready.
   */
  public InClusterOperator upgrade(String... sets) {
    List<String> args = new ArrayList<>(List.of("upgrade", DEPLOYMENT,
        TestCluster.repoRoot().resolve("helm").resolve("syncgc").toString(),
        "--namespace", NAMESPACE, "--reuse-values", "--wait", "--timeout", "3m"));
    for (String set : sets) {
      args.add("--set");
      args.add(set);
    }
    ProcessRunner.helm(TestCluster.targetDir().resolve("helm-home"), Duration.ofMinutes(4),
        args.toArray(String[]::new)).assertOk();
    return scaleAndAwait(deployment().get().getSpec().getReplicas());
  }

  @Override
  public String log() {
    return pods().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> {
          try {
            return client.pods().inNamespace(NAMESPACE).withName(p.getMetadata().getName()).getLog();
          } catch (KubernetesClientException e) {
            return ""; // the container has not started yet
          }
        })
        .collect(Collectors.joining());
  }

  @Override
  public boolean isAlive() {
    return pods().stream().anyMatch(InClusterOperator::isReady);
  }

  @Override
  public int status(String path) {
    try {
      return client.raw(proxyPath(path)) == null ? 404 : 200; // raw: null on 404, an exception on other errors
    } catch (KubernetesClientException e) {
      return e.getCode() == 0 ? -1 : e.getCode();
    }
  }

  @Override
  public String metrics() {
    String body = client.raw(proxyPath("/metrics"));
    if (body == null) {
      throw new IllegalStateException("no answer from " + proxyPath("/metrics"));
    }
    return body;
  }

  private static String proxyPath(String path) {
    return "/api/v1/namespaces/" + NAMESPACE + "/services/" + METRICS_SERVICE + "/proxy" + path;
  }

  private String describe() {
    return pods().stream().map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase()
        + " " + p.getStatus().getContainerStatuses()).collect(Collectors.joining("; "));
  }

  static boolean isReady(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null && pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
