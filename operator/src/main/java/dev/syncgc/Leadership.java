package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.engine.Engine;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.policy.PolicyReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Java Operator SDK's part: the GarbageCollectionPolicy reconciler and, with leader election, which
 * replica acts. The engine's workers start when this replica leads, once the policies are loaded
 * afresh; a replica that stops leading stops its workers and exits.
 */
final class Leadership {
  private static final Logger log = LoggerFactory.getLogger(Leadership.class);
  private static final String POLICY_CRD = "garbagecollectionpolicies.syncgc.dev";
  private final OperatorConfig config;
  /** This replica's name in the Lease: its host (the Pod's name) and process. */
  private final String identity;

  Leadership(OperatorConfig config, String hostname) {
    this.config = config;
    this.identity = hostname + "-" + ProcessHandle.current().pid();
  }

  /**
   * Java Operator SDK runs the GarbageCollectionPolicy reconciler and, when enabled, leader election:
   * the engine's workers start when this replica leads, then {@code whenLeading} runs; a replica that
   * stops leading exits.
   */
  io.javaoperatorsdk.operator.Operator start(KubernetesClient client, PrometheusMeterRegistry registry,
      SyncgcMetrics metrics, Engine engine, Runnable whenLeading) {
    boolean policyCrd = client.apiextensions().v1().customResourceDefinitions()
        .withName(POLICY_CRD).get() != null;
    if (!policyCrd) {
      if (config.leaderElection) {
        throw new IllegalStateException("CRD " + POLICY_CRD + " is not installed; apply crds/ first");
      }
      log.warn("CRD {} is not installed: GarbageCollectionPolicies are off (kubectl apply -f crds/)", POLICY_CRD);
      return null;
    }
    var josdk = new io.javaoperatorsdk.operator.Operator(o -> {
      o.withKubernetesClient(client)
          .withMetrics(MicrometerMetrics.newMicrometerMetricsBuilder(registry)
              .notCollectingMetricsPerResource().build());
      if (config.leaderElection) {
        var election = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(config.leaseName)
            .withIdentity(identity)
            .withLeaseDuration(config.leaseTimings().duration())
            .withRenewDeadline(config.leaseTimings().renewDeadline())
            .withRetryPeriod(config.leaseTimings().retryPeriod())
            .withLeaderCallbacks(new LeaderCallbacks(
                () -> startLeading(client, engine, whenLeading),
                () -> {
                  // another replica may lead already: stop acting before anything else (the exit
                  // that follows is bounded, see BoundedShutdown)
                  engine.stopWorkers();
                  log.warn("lost leadership lease={}; workers stopped, exiting", config.leaseName);
                },
                leader -> log.info("leader is {}", leader)));
        if (!config.leaderElectionNamespace.isBlank()) {
          election.withLeaseNamespace(config.leaderElectionNamespace);
        }
        o.withLeaderElectionConfiguration(election.build());
      }
    });
    if (!config.leaderElection) {
      PolicyReconciler.loadAll(client, engine.policies()); // before the reconciler runs, see loadAll
    }
    PolicyReconciler reconciler = new PolicyReconciler(engine.policies());
    metrics.policiesNotReady(reconciler::notReady);
    josdk.register(reconciler);
    josdk.start();
    return josdk;
  }

  /**
   * This replica now leads. As a standby it did not run the policy reconciler (and Java Operator SDK
   * drops the deletions it saw meanwhile), so its policies are replaced from a fresh LIST before a
   * worker decides anything; the reconciler starts only after this returns. (A policy deleted in the
   * milliseconds between this LIST and the reconciler's start is still missed: JOSDK drops that
   * deletion too.) A replica that cannot load them, or took so long that its Lease may have passed
   * on, exits without starting workers (an exception here would leave it leading without workers).
   */
  private void startLeading(KubernetesClient client, Engine engine, Runnable whenLeading) {
    long start = System.nanoTime();
    try {
      PolicyReconciler.loadAll(client, engine.policies());
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
    // not on the leader elector's thread: it holds the elector's lock, which the shutdown takes too
    new Thread(() -> System.exit(1), "exit").start();
  }
}
