package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.BACKGROUND;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.RunningOperator;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A GarbageCollectionPolicy (cluster-scoped, {@code syncgc.dev/v1alpha1}) opts Widgets in by kind
 * and namespace label. Every policy here selects only its own test's namespace, through a label
 * with a random value, so that no other test's objects are touched.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class PolicyIT {
  static final ResourceDefinitionContext POLICY = new ResourceDefinitionContext.Builder()
      .withGroup("syncgc.dev").withVersion("v1alpha1").withKind("GarbageCollectionPolicy")
      .withPlural("garbagecollectionpolicies").withNamespaced(false).build();
  private static final String NAMESPACE_LABEL = "e2e.syncgc.dev/policy";
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** The policy's objects are looked at again after a change; the status is refreshed every 10 s. */
  private static final Duration POLICY_DEADLINE = Duration.ofSeconds(30);
  /** How long an object must stay without the finalizer to count as "not opted in". */
  private static final Duration STAYS_OUT = Duration.ofSeconds(3);

  private final KubernetesClient client = TestCluster.get().client();
  private final List<String> policies = new ArrayList<>();

  @AfterEach
  void deletePolicies() {
    for (String name : policies) {
      client.genericKubernetesResources(POLICY).withName(name).delete();
    }
    for (String name : policies) {
      await("policy " + name + " gone").atMost(DEADLINE)
          .until(() -> client.genericKubernetesResources(POLICY).withName(name).get() == null);
    }
    policies.clear();
  }

  @Test
  void widgetsCreatedBeforeAndAfterThePolicyBothGetTheFinalizer(TestNamespace ns) {
    String selector = labelNamespace(ns);
    Widgets.create(client, ns.name(), "before").apply();

    createPolicy(selector, Map.of("propagation", SYNCHRONOUS));
    Widgets.create(client, ns.name(), "after").apply();

    awaitFinalizer(ns, "before", true);
    awaitFinalizer(ns, "after", true);
  }

  @Test
  void validPolicyBecomesReadyWithTheCountOfTheTwoObjectsItMatches(TestNamespace ns) {
    String selector = labelNamespace(ns);
    Widgets.create(client, ns.name(), "first").apply();
    String policy = createPolicy(selector, Map.of("propagation", SYNCHRONOUS));
    Widgets.create(client, ns.name(), "second").apply();

    GenericKubernetesResource status = awaitStatus(policy, "Ready=True with matchedObjects 2",
        p -> "True".equals(readyField(p, "status")) && Long.valueOf(2).equals(matchedObjects(p)));
    assertEquals("Valid", readyField(status, "reason"), "Ready condition: " + ready(status));
  }

  @Test
  void synchronousDeletionOfAPolicyOptedInOwnerDeletesItsDependentFirst(TestNamespace ns) {
    String selector = labelNamespace(ns);
    createPolicy(selector, Map.of("propagation", SYNCHRONOUS));
    Widgets.create(client, ns.name(), "owner").apply();
    GenericKubernetesResource owner = awaitFinalizer(ns, "owner", true);
    assertTrue(owner.getMetadata().getAnnotations() == null
        || !owner.getMetadata().getAnnotations().containsKey(PROPAGATION),
        "the owner is opted in by the policy alone: " + owner.getMetadata().getAnnotations());
    Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();

      order.awaitDeleted(DEADLINE, "owner", "dependent");
      order.checkWatches();
      order.assertBefore("dependent", "owner");
    }
  }

  /**
   * A policy's deletionWave orders an owner's dependents (the higher wave first) and its onTimeout
   * Keep holds the owner past its deadline until the blocker is gone: the policy fields, not
   * annotations, decide here.
   */
  @Test
  void aPolicysDeletionWaveOrdersSiblingsAndItsOnTimeoutKeepHoldsTheOwnerPastItsDeadline(TestNamespace ns) {
    String selector = labelNamespace(ns);
    // the first wave: Widgets labelled tier=front, at wave 5 (their policy opts them in as well)
    Map<String, Object> front = new LinkedHashMap<>();
    front.put("kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget", "deletionWave", 5)));
    front.put("selector", Map.of("matchLabels", Map.of("tier", "front")));
    front.put("propagation", SYNCHRONOUS);
    createPolicy(selector, front);
    // the owner: Widgets labelled role=owner, Synchronous, a 3 s deadline that keeps them
    createPolicy(selector, Map.of("selector", Map.of("matchLabels", Map.of("role", "owner")),
        "propagation", SYNCHRONOUS, "timeout", "3s", "onTimeout", "Keep"));
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").label("role", "owner").apply();
    owner = awaitFinalizer(ns, "owner", true);
    // the first wave is held by another controller's finalizer: the wave below must wait for it
    Widgets.create(client, ns.name(), "front").label("tier", "front").ownedBy(owner).finalizer(HOLD).apply();
    awaitFinalizer(ns, "front", true);
    Widgets.create(client, ns.name(), "back").ownedBy(owner).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();
      Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut", "Keep");
      assertTrue(ObjectAwaits.exists(client, owner), "kept past its deadline by the policy's onTimeout Keep");
      GenericKubernetesResource back = Widgets.widget(client, ns.name(), "back").get();
      assertNotNull(back, "wave 0 waits while wave 5 is held");
      assertEquals(null, back.getMetadata().getDeletionTimestamp(), "wave 0 not even asked to go yet");

      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "front"), HOLD);
      order.awaitDeleted(DEADLINE, "front", "back", "owner");
      order.checkWatches();
      order.assertBefore("front", "back"); // wave 5 before wave 0
      order.assertBefore("back", "owner");
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "front"), HOLD);
    }
  }

  @Test
  void backgroundAnnotationWinsOverThePolicySoTheObjectIsNotOptedIn(TestNamespace ns) {
    String selector = labelNamespace(ns);
    Widgets.create(client, ns.name(), "background").annotate(PROPAGATION, BACKGROUND).apply();
    Widgets.create(client, ns.name(), "plain").apply();

    String policy = createPolicy(selector, Map.of("propagation", SYNCHRONOUS));

    // the policy is in force in this namespace: the object without an annotation is opted in ...
    awaitFinalizer(ns, "plain", true);
    // ... the annotated one is not, and the policy does not count it as one it decides for
    assertStaysWithoutFinalizer(ns, "background");
    awaitStatus(policy, "Ready=True with matchedObjects 1 (the Background object not counted)",
        p -> "True".equals(readyField(p, "status")) && Long.valueOf(1).equals(matchedObjects(p)));
    assertFalse(ObjectAwaits.hasFinalizer(Widgets.widget(client, ns.name(), "background").get(),
        FINALIZER));
  }

  /**
   * What the CRD's schema does not refuse (PolicySchemaIT: a bad propagation, onTimeout, timeout,
   * gracePeriodSeconds or selector operator never gets stored) but the operator cannot use: {@code In}
   * without values. The same path reports a policy stored before the schema refused its bad values.
   */
  @Test
  void invalidPolicyIsNotReadyNamesTheBadValueIsIgnoredAndTheOperatorKeepsWorking(TestNamespace ns) {
    String field = "spec.selector";
    String badValue = "operator In on 'tier' needs values";
    String selector = labelNamespace(ns);
    Widgets.create(client, ns.name(), "plain").apply();
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("propagation", SYNCHRONOUS);
    settings.put("selector", Map.of("matchExpressions", List.of(Map.of("key", "tier", "operator", "In"))));

    String policy = createPolicy(selector, settings);

    GenericKubernetesResource status = awaitStatus(policy, "Ready=False",
        p -> "False".equals(readyField(p, "status")));
    String message = readyField(status, "message");
    assertNotNull(message, "Ready condition: " + ready(status));
    assertTrue(message.contains(badValue), "the message names the bad value '" + badValue + "': " + message);
    assertTrue(message.contains(field), "the message names the field " + field + ": " + message);
    // ignored, not applied half-way: the Widget it would select stays out
    assertStaysWithoutFinalizer(ns, "plain");

    // the operator keeps working: still alive and healthy, and it opts an annotated object in
    Widgets.create(client, ns.name(), "annotated").synchronous().applyAndAwaitFinalizer();
    RunningOperator operator = SharedOperator.get();
    assertTrue(operator.isAlive(), "the operator process is alive");
    assertEquals(200, operator.status("/healthz"));
    assertEquals(200, operator.status("/readyz"));
  }

  @Test
  void deletingThePolicyRemovesTheFinalizerFromTheObjectsItHadOptedIn(TestNamespace ns) {
    String selector = labelNamespace(ns);
    String policy = createPolicy(selector, Map.of("propagation", SYNCHRONOUS));
    Widgets.create(client, ns.name(), "one").apply();
    Widgets.create(client, ns.name(), "two").apply();
    Widgets.create(client, ns.name(), "annotated").synchronous().apply();
    awaitFinalizer(ns, "one", true);
    awaitFinalizer(ns, "two", true);
    awaitFinalizer(ns, "annotated", true);

    client.genericKubernetesResources(POLICY).withName(policy).delete();

    awaitFinalizer(ns, "one", false);
    awaitFinalizer(ns, "two", false);
    // an object opted in by its own annotation keeps it: only the policy's objects are let go
    assertTrue(ObjectAwaits.hasFinalizer(Widgets.widget(client, ns.name(), "annotated").get(),
        FINALIZER), "the annotated Widget keeps the finalizer");
  }

  // --- helpers

  /** Labels the namespace {@value #NAMESPACE_LABEL}=<random> and returns the label's value. */
  private String labelNamespace(TestNamespace ns) {
    String value = Namespaces.randomSuffix(10);
    MetadataPatches.label(client.namespaces().withName(ns.name()), NAMESPACE_LABEL, value);
    return value;
  }

  /** Creates a policy for Widgets in namespaces labelled with {@code selectorValue}; returns its name. */
  private String createPolicy(String selectorValue, Map<String, Object> settings) {
    String name = "e2e-policy-" + Namespaces.randomSuffix(8);
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", TestCrds.GROUP, "kind", "Widget")));
    spec.put("namespaceSelector", Map.of("matchLabels", Map.of(NAMESPACE_LABEL, selectorValue)));
    spec.putAll(settings);
    policies.add(name);
    GcPolicies.create(client, name, spec);
    return name;
  }

  private GenericKubernetesResource awaitFinalizer(TestNamespace ns, String name, boolean present) {
    return ObjectAwaits.awaitFinalizer(() -> Widgets.widget(client, ns.name(), name).get(), FINALIZER,
        present, POLICY_DEADLINE);
  }

  private void assertStaysWithoutFinalizer(TestNamespace ns, String name) {
    AtomicReference<GenericKubernetesResource> last = new AtomicReference<>();
    try {
      await(name + " stays without the syncgc finalizer").during(STAYS_OUT)
          .atMost(STAYS_OUT.plusSeconds(5)).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            GenericKubernetesResource w = Widgets.widget(client, ns.name(), name).get();
            last.set(w);
            return w != null && !ObjectAwaits.hasFinalizer(w, FINALIZER);
          });
    } catch (RuntimeException e) {
      throw new AssertionError(name + " got the syncgc finalizer (or vanished): "
          + (last.get() == null ? "gone" : last.get().getMetadata().getFinalizers()), e);
    }
  }

  private GenericKubernetesResource awaitStatus(String policy, String what,
      java.util.function.Predicate<GenericKubernetesResource> condition) {
    AtomicReference<GenericKubernetesResource> last = new AtomicReference<>();
    try {
      await("policy " + policy + " " + what).atMost(POLICY_DEADLINE).pollInterval(Duration.ofMillis(250))
          .until(() -> {
            GenericKubernetesResource p = client.genericKubernetesResources(POLICY).withName(policy).get();
            last.set(p);
            return p != null && condition.test(p);
          });
    } catch (RuntimeException e) {
      throw new AssertionError("policy " + policy + " not " + what + " within " + POLICY_DEADLINE
          + "; status: " + (last.get() == null ? "(gone)" : last.get().getAdditionalProperties().get("status")), e);
    }
    return last.get();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource policy) {
    Object status = policy.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static Long matchedObjects(GenericKubernetesResource policy) {
    Object matched = status(policy).get("matchedObjects");
    return matched instanceof Number n ? n.longValue() : null;
  }

  private static Map<?, ?> ready(GenericKubernetesResource policy) {
    Object conditions = status(policy).get("conditions");
    if (conditions instanceof List<?> list) {
      for (Object c : list) {
        if (c instanceof Map<?, ?> m && "Ready".equals(m.get("type"))) {
          return m;
        }
      }
    }
    return null;
  }

  private static String readyField(GenericKubernetesResource policy, String field) {
    Map<?, ?> ready = ready(policy);
    return ready == null || ready.get(field) == null ? null : ready.get(field).toString();
  }
}
