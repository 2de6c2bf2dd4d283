package dev.syncgc.e2e.soak;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.LeaseReplicas;
import dev.syncgc.e2e.support.Logs;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ServiceAccounts;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Two replicas of the operator with leader election, acting as ServiceAccount
 * {@code syncgc-soak/operator}: the identity the API server's audit log records (e2e/cluster.sh) and
 * the one a FlowSchema can throttle.
 */
final class SoakOperators implements AutoCloseable {
  static final String NAMESPACE = "syncgc-soak";
  static final String ACCOUNT = "operator";
  static final String USER = "system:serviceaccount:" + NAMESPACE + ":" + ACCOUNT;
  private static final String LEASE = "syncgc-soak";
  /**
   * Long enough that only the scenarios given a 3 s timeout time out (a deadline lets an owner go
   * before its dependents, so no order could be checked); every deletion must still end within
   * {@link SoakRound#SETTLE}, which is the bound the soak holds it to.
   */
  static final String DEFAULT_TIMEOUT = "10m";

  private final KubernetesClient client;
  private final List<OperatorProcess> replicas = new ArrayList<>();
  /** Metrics text of each replica's earlier lives (scraped before each kill), for the report. */
  private final List<String> earlierLives = new ArrayList<>();
  private final List<String> exits = new ArrayList<>();
  /** When the leader was last SIGKILLed, if no leader has been seen since (System.nanoTime()). */
  private Long leaderlessSince;
  private String leaderKilled;
  private final List<Gap> gaps = new ArrayList<>();
  private final ScheduledExecutorService supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "soak-supervisor");
    t.setDaemon(true);
    return t;
  });

  SoakOperators(KubernetesClient client) throws Exception {
    this.client = client;
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
        .build()).createOr(existing -> existing.update());
    client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName(ACCOUNT).endMetadata().build()).createOr(existing -> existing.update());
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
        .withNewMetadata().withName("syncgc-soak-operator").endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole")
        .withName("cluster-admin").endRoleRef()
        .addNewSubject().withKind("ServiceAccount").withName(ACCOUNT).withNamespace(NAMESPACE).endSubject()
        .build()).createOr(existing -> existing.update());
    Path kubeconfig = ServiceAccounts.kubeconfig(client, NAMESPACE, ACCOUNT);
    for (String replica : List.of("a", "b")) {
      replicas.add(OperatorProcess.start("soak-" + replica, List.of("--leader-election",
          "--leader-election-namespace", NAMESPACE, "--leader-election-lease-name", LEASE,
          "--leader-election-lease-duration", LeaseReplicas.LEASE_DURATION,
          "--default-timeout", DEFAULT_TIMEOUT, "--builtin-kinds", "ConfigMap,Pod", "--debug-graph"), Map.of("KUBECONFIG", kubeconfig.toString())));
    }
    replicas.forEach(OperatorProcess::awaitReady);
    supervisor.scheduleWithFixedDelay(this::supervise, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * The replica holding the Lease now, if one does. A SIGKILLed leader's Lease names a dead process
   * until it runs out ({@link LeaseReplicas#LEASE_DURATION}) and the other replica takes it: until then no replica leads.
   */
  Optional<OperatorProcess> leader() {
    Lease lease = client.leases().inNamespace(NAMESPACE).withName(LEASE).get();
    String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    Optional<OperatorProcess> leader =
        replicas.stream().filter(r -> r.isAlive() && r.leaderElectionIdentity().equals(holder)).findFirst();
    leader.ifPresent(this::leaderSeen);
    return leader;
  }

  /** A time without a leader: from a SIGKILL of the leader until a replica was seen holding the Lease. */
  record Gap(String after, Duration length, String newLeader) {
    String line() {
      return "no replica held the Lease for " + length.toMillis() + " ms after the SIGKILL of " + after + " (then "
          + newLeader + ")";
    }
  }

  /** A leader, how long this call waited for it, and the last time without one. */
  record Leadership(OperatorProcess leader, Duration waited, Optional<Gap> lastGap) {
    String line() {
      return "leader " + leader.logFile().getFileName() + " after waiting " + waited.toMillis() + " ms; "
          + lastGap.map(Gap::line).orElse("no leader SIGKILLed before");
    }
  }

  /**
   * Waits up to {@code deadline} for a replica to hold the Lease (after a SIGKILL of the leader its
   * Lease must run out first); an {@link AssertionError} with every replica's log tail if none does.
   */
  Leadership awaitLeader(Duration deadline) throws InterruptedException {
    long start = System.nanoTime();
    while (true) {
      Optional<OperatorProcess> leader;
      try {
        leader = leader();
      } catch (RuntimeException e) { // kube-apiserver restarting: asked again
        leader = Optional.empty();
      }
      long now = System.nanoTime();
      if (leader.isPresent()) {
        synchronized (this) {
          return new Leadership(leader.get(), Duration.ofNanos(now - start),
              gaps.isEmpty() ? Optional.empty() : Optional.of(gaps.get(gaps.size() - 1)));
        }
      }
      if (now - start > deadline.toNanos()) {
        StringBuilder why = new StringBuilder("no replica held the Lease " + NAMESPACE + "/" + LEASE + " within "
            + deadline);
        synchronized (this) {
          if (leaderlessSince != null) {
            why.append(" (").append(Duration.ofNanos(now - leaderlessSince).toMillis()).append(" ms since the SIGKILL of ")
                .append(leaderKilled).append(')');
          }
        }
        why.append(':');
        for (OperatorProcess r : replicas) {
          why.append("\n--- ").append(r.logFile()).append(r.isAlive() ? " (alive)" : " (not running)").append('\n')
              .append(Logs.tail(r.logFile(), 30));
        }
        throw new AssertionError(why.toString());
      }
      Thread.sleep(200);
    }
  }

  /** Every time without a leader so far, in order. */
  synchronized List<Gap> gaps() {
    return List.copyOf(gaps);
  }

  private synchronized void leaderKilled(String what) {
    leaderlessSince = System.nanoTime();
    leaderKilled = what;
  }

  private synchronized void leaderSeen(OperatorProcess leader) {
    if (leaderlessSince != null) {
      Gap gap = new Gap(leaderKilled, Duration.ofNanos(System.nanoTime() - leaderlessSince),
          leader.logFile().getFileName().toString());
      gaps.add(gap);
      leaderlessSince = null;
      System.out.println("[soak] " + gap.line());
    }
  }

  /**
   * SIGKILL of the leader (or of a replica if none leads yet), started again at once as a
   * Deployment's Pod would be; returns the pid killed.
   */
  synchronized long killLeader() {
    Optional<OperatorProcess> leader = leader();
    OperatorProcess victim = leader.orElse(replicas.get(0));
    if (leader.isPresent()) {
      leaderKilled("the leader (pid " + victim.pid() + ")");
    }
    try {
      earlierLives.add(victim.metrics());
    } catch (RuntimeException e) {
      // a replica that cannot answer is killed all the same
    }
    long pid = victim.pid();
    victim.kill();
    victim.start();
    return pid;
  }

  /**
   * SIGSTOP of the leader (or of a replica if none leads yet) for {@code pause}, then SIGCONT; the
   * replica is not started again here: it exits on its own (its pause watch, or the Lease it lost)
   * and {@link #supervise} starts it again, as the kubelet would. Returns the pid paused.
   */
  long pauseLeader(Duration pause) {
    OperatorProcess victim;
    synchronized (this) {
      victim = leader().orElse(replicas.get(0));
      try {
        earlierLives.add(victim.metrics());
      } catch (RuntimeException e) {
        // a replica that cannot answer is paused all the same
      }
    }
    long pid = victim.pid();
    signal("STOP", pid);
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      signal("CONT", pid);
    }
    return pid;
  }

  private static void signal(String name, long pid) {
    try {
      new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGKILL of every replica, each started again at once; returns the pids killed. */
  synchronized List<Long> killAll() {
    List<Long> pids = new ArrayList<>();
    leaderKilled("every replica");
    for (OperatorProcess r : replicas) {
      try {
        earlierLives.add(r.metrics());
      } catch (RuntimeException e) {
        // killed all the same
      }
      pids.add(r.pid());
      r.kill();
    }
    replicas.forEach(OperatorProcess::start);
    return pids;
  }

  /**
   * What the kubelet does for a Pod with restartPolicy Always: a replica that exited is started
   * again. A replica exits by design when it loses its Lease (it cannot renew while kube-apiserver
   * or etcd restarts), so that two leaders never act at once.
   */
  private synchronized void supervise() {
    for (OperatorProcess r : replicas) {
      try {
        if (!r.isAlive()) {
          exits.add(r.logFile().getFileName() + " exited (lost its Lease or could not start) and was started again");
          System.out.println("[soak] replica " + r.logFile().getFileName() + " exited; starting it again");
          r.start();
        }
      } catch (RuntimeException e) {
        // a failed start is tried again on the next tick: an exception must not end the supervision
        System.out.println("[soak] replica " + r.logFile().getFileName() + " could not be started: " + e);
      }
    }
    if (leaderlessSince != null) {
      try {
        leader(); // ends the time without a leader, to the second, when one holds the Lease
      } catch (RuntimeException e) {
        // kube-apiserver restarting: asked again on the next tick
      }
    }
  }

  /** Every replica alive and ready (after a fault). */
  void awaitReady(Duration deadline) {
    try {
      await("both replicas ready").atMost(deadline).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
          .until(() -> replicas.stream().allMatch(r -> r.isAlive() && r.get("/readyz").statusCode() == 200));
    } catch (RuntimeException e) {
      StringBuilder why = new StringBuilder("replicas not ready " + deadline + " after a fault:");
      for (OperatorProcess r : replicas) {
        why.append("\n--- ").append(r.logFile()).append(r.isAlive() ? " (alive)" : " (not running)").append('\n')
            .append(Logs.tail(r.logFile(), 30));
      }
      throw new AssertionError(why.toString(), e);
    }
  }

  synchronized List<String> exits() {
    return List.copyOf(exits);
  }

  List<OperatorProcess> replicas() {
    return replicas;
  }

  List<String> earlierLives() {
    return earlierLives;
  }

  @Override
  public synchronized void close() {
    supervisor.shutdownNow();
    replicas.forEach(OperatorProcess::close);
    client.leases().inNamespace(NAMESPACE).withName(LEASE).delete();
  }
}
