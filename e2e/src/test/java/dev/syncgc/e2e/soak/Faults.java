package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.TestCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The faults one round injects mid-cascade: SIGKILL of the leading replica or of every replica
 * (started again at once), SIGSTOP of the leader past its Lease (it must exit when it runs again and
 * act on nothing it saw before), a restart of kube-apiserver or of etcd with its data kept (e2e/cluster.sh), or API
 * Priority and Fairness leaving syncgc one seat and answering 429 beyond it, from before the
 * round's deletions until it settles ({@link SoakThrottle}).
 */
final class Faults implements AutoCloseable {

  /**
   * The faults. {@link #PAUSE_LEADER} came last: {@link Soak} shuffles the others as it always did
   * and ends each cycle with it, so that a kept seed gives the rounds it gave before it was added.
   */
  enum Fault { NONE, KILL_LEADER, KILL_ALL, RESTART_APISERVER, RESTART_ETCD, THROTTLE, PAUSE_LEADER }

  /**
   * How long a paused leader stays stopped: past its Lease (8 s, {@code LeaseReplicas.LEASE_DURATION}), so the other replica takes over
   * while it is frozen with a view that is old when it runs again (a frozen VM or node, a long GC).
   */
  static final Duration PAUSE = Duration.ofSeconds(12);

  private static final Duration RESTART_DEADLINE = Duration.ofMinutes(3);

  private final KubernetesClient client;
  private final SoakOperators operators;
  private SoakThrottle throttle;

  Faults(KubernetesClient client, SoakOperators operators) {
    this.client = client;
    this.operators = operators;
  }

  /** Injects the fault; returns a line for the log. A THROTTLE stays until {@link #endRound()}. */
  String inject(Fault fault) {
    return switch (fault) {
      case NONE -> "no fault";
      case KILL_LEADER -> {
        yield "SIGKILL of the leader (pid " + operators.killLeader() + "), started again";
      }
      case PAUSE_LEADER -> "SIGSTOP of the leader (pid " + operators.pauseLeader(PAUSE) + ") for " + PAUSE.toSeconds()
          + " s, past its Lease, then SIGCONT";
      case KILL_ALL -> "SIGKILL of every replica (pids " + operators.killAll() + "), started again";
      case RESTART_APISERVER -> clusterScript("restart-apiserver");
      case RESTART_ETCD -> clusterScript("restart-etcd");
      case THROTTLE -> {
        throttle = SoakThrottle.apply(client);
        yield "APF throttles " + SoakOperators.USER + " to " + throttle.seats + " seat (Reject)";
      }
    };
  }

  /**
   * Ends a throttle and waits until every replica is ready again.
   *
   * @return the requests the API server answered 429 while this round's throttle was in force, or
   *     null if the round had none
   */
  Long endRound() {
    Long count = throttle == null ? null : throttle.rejectedSince();
    close();
    operators.awaitReady(RESTART_DEADLINE);
    return count;
  }

  private static String clusterScript(String command) {
    ProcessRunner.Result r = ProcessRunner.run(List.of("bash",
        TestCluster.repoRoot().resolve("e2e/cluster.sh").toString(), command), Map.of(), RESTART_DEADLINE);
    r.assertOk();
    return "e2e/cluster.sh " + command + " (" + r.took().toMillis() + " ms)";
  }

  @Override
  public void close() {
    if (throttle != null) {
      throttle.close();
      throttle = null;
    }
  }
}
