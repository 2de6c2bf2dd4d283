package dev.syncgc.policy;

import dev.syncgc.core.policy.Policy;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the engine's policies in step with the GarbageCollectionPolicy objects, and their status
 * (matched objects, Ready condition) in step with the engine. Invalid policies are reported in
 * their condition and ignored, never applied half-way.
 */
@ControllerConfiguration(name = "garbagecollectionpolicy", triggerReconcilerOnAllEvents = true)
public class PolicyReconciler implements Reconciler<GarbageCollectionPolicy> {
  private static final Logger log = LoggerFactory.getLogger(PolicyReconciler.class);
  private static final Duration STATUS_REFRESH = Duration.ofSeconds(10);

  private final Policies policies;
  /** The policies whose Ready condition is False now ({@code syncgc_policies_not_ready}). */
  private final Set<String> notReady = ConcurrentHashMap.newKeySet();

  public PolicyReconciler(Policies policies) {
    this.policies = policies;
  }

  /** How many policies this reconciler judged not Ready (invalid) at their last reconcile. */
  public int notReady() {
    return notReady.size();
  }

  /**
   * Puts exactly the valid policies of one LIST in force (those not in it are no longer), before
   * the engine's workers start: no object is decided without the policy that opts it in, nor by one
   * changed or deleted since the store was filled (a replica that starts leading held the policies
   * of its start: as a standby it ran no reconciler). The reconciler must not run at the same time:
   * it may have put something newer than this LIST.
   *
   * @return how many policies are in force
   */
  public static int loadAll(KubernetesClient client, Policies policies) {
    LoadedPolicies loaded = LoadedPolicies.load(client);
    loaded.invalid().forEach((name, why) -> log.warn("invalid policy policy={} reason=\"{}\"", name, why));
    List<Policy> valid = loaded.validOrThrow(); // no object is decided without the policies that may opt it in
    policies.replaceAll(valid);
    log.info("policies loaded before the workers start count={}", valid.size());
    return valid.size();
  }

  @Override
  public UpdateControl<GarbageCollectionPolicy> reconcile(GarbageCollectionPolicy resource,
      Context<GarbageCollectionPolicy> context) {
    String name = resource.getMetadata().getName();
    if (context.isPrimaryResourceDeleted()) {
      policies.remove(name);
      notReady.remove(name);
      log.info("policy removed policy={}", name);
      return UpdateControl.noUpdate();
    }
    PolicyStatus status = new PolicyStatus();
    status.setObservedGeneration(resource.getMetadata().getGeneration());
    Condition ready;
    try {
      policies.put(PolicyTranslator.translate(resource));
      status.setMatchedObjects(policies.matchedBy(name));
      ready = condition("True", "Valid", "The policy is in force");
      notReady.remove(name);
    } catch (PolicyTranslator.InvalidPolicy e) {
      policies.remove(name);
      status.setMatchedObjects(0L);
      ready = condition("False", "Invalid", e.getMessage());
      notReady.add(name);
      log.warn("invalid policy policy={} reason=\"{}\"", name, e.getMessage());
    }
    Condition previous = resource.getStatus() == null ? null : resource.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
    if (previous != null && previous.getStatus().equals(ready.getStatus())
        && Objects.equals(previous.getMessage(), ready.getMessage())) {
      ready.setLastTransitionTime(previous.getLastTransitionTime());
    }
    status.setConditions(List.of(ready));
    if (sameStatus(resource.getStatus(), status)) {
      return UpdateControl.<GarbageCollectionPolicy>noUpdate().rescheduleAfter(STATUS_REFRESH);
    }
    resource.setStatus(status);
    return UpdateControl.patchStatus(resource).rescheduleAfter(STATUS_REFRESH);
  }

  private static Condition condition(String status, String reason, String message) {
    return new ConditionBuilder().withType("Ready").withStatus(status).withReason(reason)
        .withMessage(message).withLastTransitionTime(Instant.now().toString()).build();
  }

  private static boolean sameStatus(PolicyStatus a, PolicyStatus b) {
    if (a == null || a.getConditions().size() != 1) {
      return false;
    }
    Condition x = a.getConditions().get(0);
    Condition y = b.getConditions().get(0);
    return Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
        && Objects.equals(a.getMatchedObjects(), b.getMatchedObjects())
        && x.getStatus().equals(y.getStatus()) && Objects.equals(x.getMessage(), y.getMessage())
        && Objects.equals(x.getReason(), y.getReason());
  }
}
