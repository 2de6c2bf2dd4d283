package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.engine.Engine;
import dev.syncgc.policy.PolicyController;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which replica acts. Without leader election this one does at once; with it, the one that holds the
 * Lease: its policies are served afresh ({@link PolicyController#start}), then the engine's workers
 * start; a replica that stops leading stops its workers and exits.
 */
final class Leadership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Leadership.class);
  private final OperatorConfig config;
  /** This replica's name in the Lease: its host (the Pod's name) and process. */
  private final String identity;
  private final ExecutorService electorThreads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "leader-election");
    t.setDaemon(true);
    return t;
  });
  private CompletableFuture<?> election;
  private volatile boolean closing;

  Leadership(OperatorConfig config, String hostname) {
    this.config = config;
    this.identity = hostname + "-" + ProcessHandle.current().pid();
  }

  /**
   * Acts now, or, with leader election, once this replica holds the Lease: serves the policies, starts
   * the engine's workers, then runs {@code whenLeading}. Without leader election a failure to serve the
   * policies is thrown; with it, the replica exits without starting its workers.
   */
  void start(KubernetesClient client, PolicyController policies, Engine engine, Runnable whenLeading) {
    if (!config.leaderElection) {
      policies.start();
      engine.startWorkers();
      whenLeading.run();
      return;
    }
    String namespace = config.leaderElectionNamespace.isBlank() ? client.getNamespace()
        : config.leaderElectionNamespace;
    if (namespace == null || namespace.isBlank()) {
      throw new StartupFailure("leader election: the Lease's namespace is not set and cannot be inferred;"
          + " set --leader-election-namespace");
    }
    mayUseTheLease(client, namespace);
    var election = new LeaderElectionConfigBuilder()
        .withName(config.leaseName)
        .withLock(new LeaseLock(namespace, config.leaseName, identity))
        .withLeaseDuration(config.leaseTimings().duration())
        .withRenewDeadline(config.leaseTimings().renewDeadline())
        .withRetryPeriod(config.leaseTimings().retryPeriod())
        .withLeaderCallbacks(new LeaderCallbacks(
            () -> startLeading(policies, engine, whenLeading),
            () -> {
              // another replica may lead already: stop acting before anything else (the exit
              // that follows is bounded, see BoundedShutdown)
              engine.stopWorkers();
              if (!closing) {
                log.warn("lost leadership lease={}; workers stopped, exiting", config.leaseName);
                exit();
              }
            },
            leader -> log.info("leader is {}", leader)))
        .build();
    this.election = new LeaderElectorBuilder(client, electorThreads).withConfig(election).build().start();
    log.info("leader election started lease={}/{} identity={}", namespace, config.leaseName, identity);
  }

  /**
   * The replica must read, create and renew its Lease: asked of the API server once at start
   * (SelfSubjectAccessReview), so that a missing grant is told and the process exits, instead of an
   * election that only logs its refused requests and never leads. A review that cannot be made (an
   * API server without it) leaves the election to find out.
   */
  private void mayUseTheLease(KubernetesClient client, String namespace) {
    List<String> denied = new ArrayList<>();
    for (String verb : List.of("get", "create", "update")) {
      SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
          .withGroup("coordination.k8s.io").withResource("leases").withVerb(verb).withNamespace(namespace)
          .withName(verb.equals("create") ? null : config.leaseName).endResourceAttributes().endSpec().build();
      try {
        SelfSubjectAccessReview answer = client.authorization().v1().selfSubjectAccessReview().create(review);
        if (answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
          denied.add(verb);
        }
      } catch (KubernetesClientException e) {
        log.warn("leader election: could not ask whether this replica may use its Lease ({}); the election will tell",
            e.getMessage());
        return;
      }
    }
    if (!denied.isEmpty()) {
      throw new StartupFailure("leader election: this replica may not " + String.join(", ", denied)
          + " Leases (coordination.k8s.io) in namespace " + namespace + " (Lease " + config.leaseName
          + "): grant get, create and update on leases there to its ServiceAccount (the chart's Role does),"
          + " or run without --leader-election");
    }
  }

  /**
   * This replica now leads. As a standby it served no policies, so they are loaded afresh before a
   * worker decides anything (see {@link PolicyController#start}). A replica that cannot load them, or
   * took so long that its Lease may have passed on, exits without starting workers (an exception here
   * would leave it leading without workers).
   */
  private void startLeading(PolicyController policies, Engine engine, Runnable whenLeading) {
    long start = System.nanoTime();
    try {
      policies.start();
    } catch (RuntimeException e) {
      exitWithoutWorkers("the policies could not be loaded: " + e);
      return;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // past the renew deadline a replica still loading may no longer lead
    if (took.compareTo(config.leaseTimings().renewDeadline()) > 0) {
      exitWithoutWorkers("loading the policies took " + took.toMillis() + " ms");
      return;
    }
    log.info("leading: starting workers lease={}", config.leaseName);
    engine.startWorkers();
    whenLeading.run();
  }

  private void exitWithoutWorkers(String why) {
    log.error("leading, but {}; exiting without starting workers lease={}", why, config.leaseName);
    exit();
  }

  /** Not on the leader elector's thread: it holds the elector's lock, which the shutdown takes too. */
  private static void exit() {
    new Thread(() -> System.exit(1), "exit").start();
  }

  /** Stops taking part in the election (the Lease is not released: it expires). */
  @Override
  public void close() {
    closing = true;
    if (election != null) {
      election.cancel(true);
    }
    electorThreads.shutdownNow();
  }
}
