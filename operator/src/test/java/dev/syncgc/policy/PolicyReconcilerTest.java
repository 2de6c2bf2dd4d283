package dev.syncgc.policy;

import static dev.syncgc.policy.PolicyTranslatorTest.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.policy.Policy;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyReconcilerTest {

  /** What the reconciler does with a policy: in force, or out of force and Ready False with the reason. */
  @Test
  void aPolicyThatBecomesInvalidIsTakenOutOfForceAndItsConditionSaysWhy() {
    Map<String, Policy> inForce = new LinkedHashMap<>();
    PolicyReconciler reconciler = new PolicyReconciler(new Policies() {
      @Override
      public void put(Policy policy) {
        inForce.put(policy.name(), policy);
      }

      @Override
      public void remove(String name) {
        inForce.remove(name);
      }

      @Override
      public void replaceAll(Collection<Policy> policies) {
        throw new AssertionError("not called by reconcile");
      }

      @Override
      public long matchedBy(String name) {
        return 4;
      }
    });

    GarbageCollectionPolicy valid = resource("p", s -> s.setPropagation("Orphan"));
    reconciler.reconcile(valid, live());
    assertEquals(List.of("p"), new ArrayList<>(inForce.keySet()));
    assertEquals(0, reconciler.notReady());
    Condition ready = valid.getStatus().getConditions().get(0);
    assertEquals(List.of("Ready", "True", "Valid"), List.of(ready.getType(), ready.getStatus(), ready.getReason()));
    assertEquals(4L, valid.getStatus().getMatchedObjects());

    GarbageCollectionPolicy broken = resource("p", s -> s.setTimeout("-5s"));
    reconciler.reconcile(broken, live());
    assertEquals(Map.of(), inForce, "the old version is not kept in force either");
    ready = broken.getStatus().getConditions().get(0);
    assertEquals(List.of("Ready", "False", "Invalid"), List.of(ready.getType(), ready.getStatus(), ready.getReason()));
    assertTrue(ready.getMessage().startsWith("spec.timeout '"), ready.getMessage());
    assertEquals(0L, broken.getStatus().getMatchedObjects());
    assertEquals(3L, broken.getStatus().getObservedGeneration());
    assertEquals(1, reconciler.notReady(), "counted for syncgc_policies_not_ready");

    reconciler.reconcile(resource("p", s -> s.setPropagation("Orphan")), live());
    assertEquals(0, reconciler.notReady(), "fixed: Ready again");
  }

  /** A reconcile context for a policy that is not being deleted. */
  @SuppressWarnings("unchecked")
  private static Context<GarbageCollectionPolicy> live() {
    return (Context<GarbageCollectionPolicy>) Proxy.newProxyInstance(Context.class.getClassLoader(),
        new Class<?>[] {Context.class}, (proxy, method, args) -> {
          if (method.getName().equals("isPrimaryResourceDeleted")) {
            return false;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }
}
