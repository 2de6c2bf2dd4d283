package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.settings.SettingSamples;
import dev.syncgc.e2e.support.GcPolicies;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.TestCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The API server refuses a GarbageCollectionPolicy syncgc could not use when it is written, naming the
 * field and the fix, instead of storing it for the operator to report Ready=False: the CRD's schema
 * (generated from PolicySpec: enums from the Java enums, a minimum, a CEL rule on the timeout) says
 * what PolicyTranslator says. The API server alone: no operator needed. Server-side dry runs, so that
 * nothing is stored, but for the one good policy created for real.
 */
class PolicySchemaIT {
  private final KubernetesClient client = TestCluster.get().client();

  static Stream<Arguments> badPolicies() {
    return Stream.of(
        bad("propagation Sideways", s -> s.put("propagation", "Sideways"), "spec.propagation",
            "supported values: \"Synchronous\", \"Orphan\", \"Background\""),
        bad("propagation synchronous", s -> s.put("propagation", "synchronous"), "spec.propagation",
            "supported values: \"Synchronous\", \"Orphan\", \"Background\""),
        bad("no propagation", s -> s.remove("propagation"), "spec", "propagation is required unless keep is true"),
        bad("no propagation, keep false", s -> {
          s.remove("propagation");
          s.put("keep", false);
        }, "spec", "propagation is required unless keep is true"),
        bad("selector operator Sideways", s -> s.put("selector", Map.of("matchExpressions",
            List.of(Map.of("key", "tier", "operator", "Sideways")))), "spec.selector.matchExpressions[0].operator",
            "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""),
        bad("namespaceSelector operator Equals", s -> s.put("namespaceSelector", Map.of("matchExpressions",
            List.of(Map.of("key", "tier", "operator", "Equals")))), "spec.namespaceSelector.matchExpressions[0].operator",
            "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""),
        bad("keep yes", s -> s.put("keep", "yes"), "spec.keep", "must be of type boolean"),
        bad("onTimeout Never", s -> s.put("onTimeout", "Never"), "spec.onTimeout",
            "supported values: \"Release\", \"Keep\""),
        bad("timeout soon", s -> s.put("timeout", "soon"), "spec.timeout",
            "\"soon\" is not a duration greater than zero such as 90s, 5m or 1h30m"),
        bad("timeout 0s", s -> s.put("timeout", "0s"), "spec.timeout",
            "\"0s\" is not a duration greater than zero such as 90s, 5m or 1h30m"),
        bad("timeout 1h 30m", s -> s.put("timeout", "1h 30m"), "spec.timeout",
            "\"1h 30m\" is not a duration greater than zero such as 90s, 5m or 1h30m"),
        bad("gracePeriodSeconds -1", s -> s.put("gracePeriodSeconds", -1), "spec.gracePeriodSeconds",
            "should be greater than or equal to 0"),
        bad("gracePeriodSeconds ten", s -> s.put("gracePeriodSeconds", "ten"), "spec.gracePeriodSeconds",
            "must be of type integer"),
        bad("no kinds", s -> s.put("kinds", List.of()), "spec.kinds", "should have at least 1 items"),
        bad("blank kind", s -> s.put("kinds", List.of(Map.of("group", "", "kind", " \t"))), "spec.kinds[0].kind",
            "should match"));
  }

  private static Arguments bad(String name, Consumer<Map<String, Object>> edit, String field, String fix) {
    return Arguments.of(name, edit, field, fix);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPolicies")
  void refusesABadPolicyNamingTheFieldAndTheFix(String name, Consumer<Map<String, Object>> edit, String field,
      String fix) {
    Map<String, Object> spec = goodSpec();
    edit.accept(spec);

    KubernetesClientException refusal = GcPolicies.refusal(client, "e2e-schema-" + Namespaces.randomSuffix(8), spec)
        .orElseThrow(() -> new AssertionError("the API server took a policy with " + name + ": " + spec));

    String message = refusal.getStatus() == null ? refusal.getMessage() : refusal.getStatus().getMessage();
    System.out.println("[schema] " + name + " -> " + refusal.getCode() + " " + message);
    assertEquals(422, refusal.getCode(), message);
    assertTrue(message.contains(field), "names the field " + field + ": " + message);
    assertTrue(message.contains(fix), "says the fix (" + fix + "): " + message);
  }

  /**
   * The same durations as GoDurationTest (SettingSamples.DURATIONS, 43 of them): the API server takes a
   * policy's timeout exactly where the operator's parser takes it.
   */
  @Test
  void timeoutIsRefusedExactlyWhereTheOperatorsParserRefusesIt() {
    List<String> disagreements = new ArrayList<>();
    int refused = 0;
    for (String timeout : SettingSamples.DURATIONS) {
      Map<String, Object> spec = goodSpec();
      spec.put("timeout", timeout);
      Optional<KubernetesClientException> refusal =
          GcPolicies.refusal(client, "e2e-schema-" + Namespaces.randomSuffix(8), spec);
      boolean operatorTakesIt = SettingSamples.validDuration(timeout);
      refusal.ifPresent(e -> assertTrue(e.getCode() == 422 && e.getMessage().contains("spec.timeout"),
          "refused for its timeout '" + timeout + "': " + e.getMessage()));
      if (refusal.isPresent() == operatorTakesIt) {
        disagreements.add("'" + timeout + "': the operator " + (operatorTakesIt ? "takes" : "refuses")
            + " it, the API server " + refusal.map(e -> "refuses it: " + e.getMessage()).orElse("takes it"));
      }
      refused += refusal.isPresent() ? 1 : 0;
    }
    System.out.println("[schema] timeouts: " + SettingSamples.DURATIONS.size() + " samples, " + refused
        + " refused, " + disagreements.size() + " disagreements");
    assertEquals(List.of(), disagreements);
  }

  @Test
  void takesAPolicyWithEveryFieldSetAndStoresItAsWritten() {
    String name = "e2e-schema-good-" + Namespaces.randomSuffix(8);
    Map<String, Object> spec = goodSpec();
    spec.put("kinds", List.of(Map.of("group", "test.syncgc.dev", "kind", "Widget", "deletionWave", -2),
        Map.of("group", "", "kind", "*")));
    spec.put("propagation", "Orphan");
    spec.put("timeout", "1h30m");
    spec.put("onTimeout", "Keep");
    spec.put("gracePeriodSeconds", 0);
    spec.put("priority", -5);
    try {
      GcPolicies.create(client, name, spec);
      GenericKubernetesResource stored = client.genericKubernetesResources(GcPolicies.POLICY).withName(name).get();
      @SuppressWarnings("unchecked")
      Map<String, Object> storedSpec = (Map<String, Object>) stored.getAdditionalProperties().get("spec");
      assertEquals("Orphan", storedSpec.get("propagation"));
      assertEquals("1h30m", storedSpec.get("timeout"));
      assertEquals("Keep", storedSpec.get("onTimeout"));
      assertEquals(0, ((Number) storedSpec.get("gracePeriodSeconds")).intValue());
      for (String propagation : List.of("Synchronous", "Background")) {
        Map<String, Object> other = goodSpec();
        other.put("propagation", propagation);
        other.put("onTimeout", "Release");
        assertEquals(Optional.empty(), GcPolicies.refusal(client, name + "-" + propagation.toLowerCase(), other)
            .map(KubernetesClientException::getMessage));
      }
      Map<String, Object> keep = goodSpec(); // SPEC "Keep one dependent": a keeping policy need not opt in
      keep.remove("propagation");
      keep.put("keep", true);
      assertEquals(Optional.empty(), GcPolicies.refusal(client, name + "-keep", keep)
          .map(KubernetesClientException::getMessage));
    } finally {
      GcPolicies.delete(client, name);
    }
  }

  /** A valid policy that matches nothing (a namespace label no namespace has). */
  private static Map<String, Object> goodSpec() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("kinds", List.of(Map.of("group", "test.syncgc.dev", "kind", "Widget")));
    spec.put("namespaceSelector", Map.of("matchLabels", Map.of("e2e.syncgc.dev/schema", "none")));
    spec.put("propagation", "Synchronous");
    return spec;
  }
}
