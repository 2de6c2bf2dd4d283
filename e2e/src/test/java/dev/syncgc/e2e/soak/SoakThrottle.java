package dev.syncgc.e2e.soak;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.Throttle;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfiguration;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;

/**
 * The soak's throttling fault, made to throttle. {@link Throttle} alone gives syncgc's identity a
 * priority level of 1 share; the API server divides its concurrency (1,500 seats on
 * e2e/cluster.sh) by the sum of every level's shares (245 for the suggested levels), so 1 share was
 * still 7 seats, more than two replicas with a round of cascades ever had in flight: a 5-minute soak
 * saw 0 requests answered 429 in two throttled rounds. A ballast level no FlowSchema uses takes
 * {@link #BALLAST_SHARES} shares and lends all of them ({@code lendablePercent: 100}), so every
 * other level borrows back what it needs, while syncgc's level (no lending, no borrowing, Reject)
 * is left with exactly 1 seat: beyond one request in flight, 429. The API server's own counter
 * ({@code apiserver_flowcontrol_rejected_requests_total} for the level) says how many it refused.
 */
final class SoakThrottle implements AutoCloseable {
  static final String LEVEL = "syncgc-soak";
  private static final String BALLAST = "syncgc-soak-ballast";
  /** Enough that 1 share is at most 1 seat for a server concurrency up to this many seats. */
  static final int BALLAST_SHARES = 5000;
  private static final Duration APPLIED = Duration.ofSeconds(60);

  private final KubernetesClient client;
  private final PriorityLevelConfiguration ballast;
  private final Throttle throttle;
  private final double rejectedBefore;
  /** The seats the API server gave syncgc's level once the throttle was in force. */
  final long seats;

  private SoakThrottle(KubernetesClient client, PriorityLevelConfiguration ballast, Throttle throttle,
      double rejectedBefore, long seats) {
    this.client = client;
    this.ballast = ballast;
    this.throttle = throttle;
    this.rejectedBefore = rejectedBefore;
    this.seats = seats;
  }

  /** Throttles syncgc's identity and waits until the API server gives its level a single seat. */
  static SoakThrottle apply(KubernetesClient client) {
    PriorityLevelConfiguration ballast = client.resource(new PriorityLevelConfigurationBuilder()
        .withNewMetadata().withName(BALLAST).endMetadata()
        .withNewSpec().withType("Limited").withNewLimited()
        .withNominalConcurrencyShares(BALLAST_SHARES).withLendablePercent(100)
        .withNewLimitResponse().withType("Reject").endLimitResponse()
        .endLimited().endSpec().build()).createOr(existing -> existing.update());
    Throttle throttle = Throttle.serviceAccount(client, LEVEL, SoakOperators.NAMESPACE, SoakOperators.ACCOUNT);
    long[] seats = {-1};
    try {
      await("APF gives " + LEVEL + " one seat").atMost(APPLIED).pollInterval(Duration.ofMillis(500))
          .ignoreExceptions().until(() -> {
            seats[0] = Math.round(metrics(client).sum("apiserver_flowcontrol_nominal_limit_seats",
                Map.of("priority_level", LEVEL)).orElse(-1));
            return seats[0] == 1;
          });
    } catch (RuntimeException e) {
      throttle.close();
      client.resource(ballast).delete();
      throw new IllegalStateException("APF did not reduce " + LEVEL + " to one seat within " + APPLIED + " (it has "
          + seats[0] + ")", e);
    }
    // counted from here: the level exists and nothing of the round has been sent yet
    return new SoakThrottle(client, ballast, throttle, rejected(client), seats[0]);
  }

  /** Requests of syncgc's identity the API server has answered 429 since the throttle began. */
  long rejectedSince() {
    return Math.round(rejected(client) - rejectedBefore);
  }

  private static double rejected(KubernetesClient client) {
    return metrics(client).sum("apiserver_flowcontrol_rejected_requests_total", Map.of("priority_level", LEVEL))
        .orElse(0);
  }

  private static Metrics metrics(KubernetesClient client) {
    return Metrics.parse(Retry.call("kube-apiserver /metrics", () -> client.raw("/metrics")));
  }

  @Override
  public void close() {
    throttle.close();
    client.resource(ballast).delete();
  }
}
