package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchemaBuilder;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfiguration;
import io.fabric8.kubernetes.api.model.flowcontrol.v1.PriorityLevelConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/**
 * API Priority and Fairness against one ServiceAccount: a FlowSchema puts every request of the
 * identity on a PriorityLevelConfiguration of its own with the smallest share (1), nothing lent or
 * borrowed, and {@code Reject}: beyond a few requests in flight the API server answers 429.
 * {@link #close()} removes both.
 */
public final class Throttle implements AutoCloseable {
  private final KubernetesClient client;
  private final PriorityLevelConfiguration level;
  private final FlowSchema flows;

  private Throttle(KubernetesClient client, PriorityLevelConfiguration level, FlowSchema flows) {
    this.client = client;
    this.level = level;
    this.flows = flows;
  }

  /** Throttles {@code namespace/serviceAccount} and waits until the API server has taken the FlowSchema in. */
  public static Throttle serviceAccount(KubernetesClient client, String name, String namespace,
      String serviceAccount) {
    PriorityLevelConfiguration level = client.resource(new PriorityLevelConfigurationBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withType("Limited").withNewLimited()
        .withNominalConcurrencyShares(1).withLendablePercent(0).withBorrowingLimitPercent(0)
        .withNewLimitResponse().withType("Reject").endLimitResponse()
        .endLimited().endSpec().build()).createOr(existing -> existing.update());
    FlowSchema flows = client.resource(new FlowSchemaBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withMatchingPrecedence(500)
        .withNewPriorityLevelConfiguration().withName(name).endPriorityLevelConfiguration()
        .withNewDistinguisherMethod().withType("ByUser").endDistinguisherMethod()
        .addNewRule()
        .addNewSubject().withKind("ServiceAccount").withNewServiceAccount().withName(serviceAccount)
        .withNamespace(namespace).endServiceAccount().endSubject()
        .addNewResourceRule().withVerbs("*").withApiGroups("*").withResources("*").withClusterScope(true)
        .withNamespaces("*").endResourceRule()
        .addNewNonResourceRule().withVerbs("*").withNonResourceURLs("*").endNonResourceRule()
        .endRule().endSpec().build()).createOr(existing -> existing.update());
    Throttle throttle = new Throttle(client, level, flows);
    // the API server's APF controller writes this condition once it has taken the FlowSchema in
    await("FlowSchema " + name + " in effect").atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200)).until(() -> {
          FlowSchema now = client.resources(FlowSchema.class).withName(name).get();
          return now != null && now.getStatus() != null && now.getStatus().getConditions() != null
              && now.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("Dangling") && c.getStatus().equals("False"));
        });
    return throttle;
  }

  @Override
  public void close() {
    client.resource(flows).delete();
    client.resource(level).delete();
  }
}
