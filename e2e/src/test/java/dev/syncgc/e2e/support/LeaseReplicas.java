package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two operators started with {@code --leader-election} on a Lease of their own (in
 * {@value #NAMESPACE}), the shared operator paused meanwhile: which one holds the Lease, and the
 * other. {@link #close()} kills both, deletes the Lease and resumes the shared operator.
 */
public final class LeaseReplicas implements AutoCloseable {
  public static final String NAMESPACE = "default";

  private final KubernetesClient client;
  /**
   * The replicas' Lease duration: shorter than the operator's 15 s, so that a takeover after a SIGKILL
   * costs the suite less; what is tested (only the holder acts, the standby takes over once the Lease
   * runs out) does not depend on it.
   */
  public static final String LEASE_DURATION = "8s";

  private final String lease;
  private final List<OperatorProcess> operators = new ArrayList<>();

  private LeaseReplicas(KubernetesClient client, String lease) {
    this.client = client;
    this.lease = lease;
  }

  /**
   * Pauses the shared operator, starts replicas "a" and "b" (logs {@code <prefix>-<lease>-a|b}) with
   * {@code args} besides the leader-election flags, and waits until both are ready (a standby is
   * ready once its graph is built, as the leader is).
   */
  public static LeaseReplicas start(KubernetesClient client, String prefix, String... args) {
    SharedOperator.pause();
    LeaseReplicas replicas = new LeaseReplicas(client, "syncgc-e2e-" + Namespaces.randomSuffix(8));
    try {
      for (String replica : List.of("a", "b")) {
        List<String> all = new ArrayList<>(List.of("--leader-election", "--leader-election-namespace", NAMESPACE,
            "--leader-election-lease-name", replicas.lease, "--leader-election-lease-duration", LEASE_DURATION));
        all.addAll(List.of(args));
        replicas.operators.add(OperatorProcess.start(prefix + "-" + replicas.lease + "-" + replica, all, Map.of()));
      }
      replicas.operators.forEach(OperatorProcess::awaitReady);
    } catch (RuntimeException | AssertionError e) {
      replicas.close();
      throw e;
    }
    return replicas;
  }

  public String lease() {
    return lease;
  }

  /** The identity the Lease names now, or null. */
  public String holder() {
    Lease current = client.leases().inNamespace(NAMESPACE).withName(lease).get();
    return current == null || current.getSpec() == null ? null : current.getSpec().getHolderIdentity();
  }

  /** Waits until one of the replicas holds the Lease and returns it. */
  public OperatorProcess awaitHolder(Duration deadline) {
    return awaitHolder(operators, deadline);
  }

  /** Waits until {@code expected} holds the Lease. */
  public void awaitHolderIs(OperatorProcess expected, Duration deadline) {
    awaitHolder(List.of(expected), deadline);
  }

  /** The replica that is not {@code one}. */
  public OperatorProcess other(OperatorProcess one) {
    return operators.stream().filter(o -> o != one).findFirst().orElseThrow();
  }

  private OperatorProcess awaitHolder(List<OperatorProcess> candidates, Duration deadline) {
    AtomicReference<String> last = new AtomicReference<>();
    try {
      await("Lease " + NAMESPACE + "/" + lease + " held by one of " + candidates.size() + " operator(s)")
          .atMost(deadline).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            last.set(holder());
            return candidates.stream().anyMatch(o -> o.leaderElectionIdentity().equals(last.get()));
          });
    } catch (RuntimeException e) {
      throw new AssertionError("none of " + candidates.stream().map(OperatorProcess::leaderElectionIdentity).toList()
          + " holds Lease " + lease + " within " + deadline + "; holder: " + last.get(), e);
    }
    return candidates.stream().filter(o -> o.leaderElectionIdentity().equals(last.get())).findFirst().orElseThrow();
  }

  @Override
  public void close() {
    try {
      operators.forEach(OperatorProcess::close);
      operators.clear();
      client.leases().inNamespace(NAMESPACE).withName(lease).delete();
    } finally {
      SharedOperator.resume();
    }
  }
}
