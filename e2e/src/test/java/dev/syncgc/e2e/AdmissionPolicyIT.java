package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.settings.Setting;
import dev.syncgc.core.settings.SettingSamples;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchResourcesBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's optional ValidatingAdmissionPolicy (admissionPolicy.enabled=true, as helm renders it)
 * refuses a write that sets a syncgc.dev/ annotation to a value the operator cannot use, on any
 * object, and takes the others: exactly where the operator's parsers refuse (SettingSamples, the
 * samples SettingSamplesTest pins). A value stored while the policy did not apply stays, and does not
 * block other writes, the operator's included. The API server alone, but for that last test (the
 * shared operator). The binding is narrowed to objects labelled for this test class, so that nothing
 * else in the cluster meets the policy.
 */
@ExtendWith(TestNamespace.Extension.class)
class AdmissionPolicyIT {
  private static final String LABEL = "e2e.syncgc.dev/admission-policy";
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private static KubernetesClient client;
  private static String name;
  private static String labelValue;

  @BeforeAll
  static void installThePolicyOfTheChart() {
    client = TestCluster.get().client();
    Helm.Rendered rendered = Helm.forChart().render("--set", "admissionPolicy.enabled=true");
    ValidatingAdmissionPolicy policy = rendered.one(ValidatingAdmissionPolicy.class);
    ValidatingAdmissionPolicyBinding binding = rendered.one(ValidatingAdmissionPolicyBinding.class);
    assertEquals(List.of("Deny"), binding.getSpec().getValidationActions());
    labelValue = Namespaces.randomSuffix(8);
    name = "e2e-annotations-" + labelValue;
    policy.getMetadata().setName(name);
    binding.getMetadata().setName(name);
    binding.getSpec().setPolicyName(name);
    binding.getSpec().setMatchResources(new MatchResourcesBuilder()
        .withObjectSelector(new LabelSelectorBuilder().withMatchLabels(Map.of(LABEL, labelValue)).build()).build());
    client.resource(policy).create();
    client.resource(binding).create();
  }

  @AfterAll
  static void uninstall() {
    if (name != null) {
      client.admissionRegistration().v1().validatingAdmissionPolicyBindings().withName(name).delete();
      client.admissionRegistration().v1().validatingAdmissionPolicies().withName(name).delete();
    }
  }

  @Test
  void refusesABadAnnotationOnAConfigMapNamingTheFixAndTakesGoodOnes(TestNamespace ns) {
    awaitEnforced(ns);

    KubernetesClientException refusal = refusal(ns, Map.of("syncgc.dev/timeout", "soon"), false)
        .orElseThrow(() -> new AssertionError("a ConfigMap with syncgc.dev/timeout=soon was created"));
    System.out.println("[admission] " + refusal.getCode() + " " + refusal.getMessage());
    assertEquals(422, refusal.getCode(), refusal.getMessage());
    assertTrue(refusal.getMessage().contains("syncgc.dev/timeout=\"soon\" is invalid: must be a duration greater"
        + " than zero such as 90s, 5m or 1h30m"), refusal.getMessage());
    assertEquals(null, client.configMaps().inNamespace(ns.name()).withName("probe").get(), "nothing stored");

    Map<String, String> good = new LinkedHashMap<>();
    good.put("syncgc.dev/propagation", "Synchronous");
    good.put("syncgc.dev/timeout", "1h30m");
    good.put("syncgc.dev/grace-period-seconds", "30");
    good.put("syncgc.dev/on-timeout", "Keep");
    good.put("syncgc.dev/deletion-wave", "-2");
    assertEquals(Optional.empty(), refusal(ns, good, false).map(KubernetesClientException::getMessage));
    // (a running operator may have added its own, e.g. syncgc.dev/last-valid-propagation)
    Map<String, String> stored = client.configMaps().inNamespace(ns.name()).withName("probe").get().getMetadata()
        .getAnnotations();
    assertTrue(stored.entrySet().containsAll(good.entrySet()), "stored as written: " + stored);
  }

  @Test
  void refusesABadAnnotationOnACustomResourceToo(TestNamespace ns) {
    awaitEnforced(ns);
    KubernetesClientException refusal = null;
    try {
      Widgets.create(client, ns.name(), "sideways").label(LABEL, labelValue)
          .annotate("syncgc.dev/propagation", "Sideways").apply();
    } catch (KubernetesClientException e) {
      refusal = e;
    }
    assertNotNull(refusal, "a Widget with syncgc.dev/propagation=Sideways was created");
    assertTrue(refusal.getMessage().contains(
        "syncgc.dev/propagation=\"Sideways\" is invalid: must be one of Synchronous, Orphan, Background"),
        refusal.getMessage());
  }

  /** Every sample of every annotation, one ConfigMap each (dry runs): refused where the operator refuses. */
  @Test
  void refusesEachAnnotationValueExactlyWhereTheOperatorRefusesIt(TestNamespace ns) {
    awaitEnforced(ns);
    List<String> disagreements = new ArrayList<>();
    int samples = 0;
    int refused = 0;
    for (Map.Entry<Setting<?>, List<String>> entry : SettingSamples.ANNOTATION_VALUES.entrySet()) {
      Setting<?> setting = entry.getKey();
      for (String value : entry.getValue()) {
        Optional<KubernetesClientException> refusal = refusal(ns, Map.of(setting.annotation(), value), true);
        boolean operatorTakesIt = SettingSamples.valid(setting, value);
        if (refusal.isPresent() == operatorTakesIt) {
          disagreements.add(setting.annotation() + "=\"" + value + "\": the operator "
              + (operatorTakesIt ? "takes" : "refuses") + " it, the admission policy "
              + refusal.map(e -> "refuses it: " + e.getMessage()).orElse("takes it"));
        }
        // a timeout longer than 2^63-1 ns makes duration() fail: refused with the error, which names the rule
        refusal.ifPresent(e -> assertTrue(e.getMessage().contains(setting.annotation() + "=\"")
            || setting == Setting.TIMEOUT && e.getMessage().contains("'variables.timeout.all(v, "),
            "the refusal names the annotation: " + e.getMessage()));
        samples++;
        refused += refusal.isPresent() ? 1 : 0;
      }
    }
    System.out.println("[admission] " + samples + " annotation values, " + refused + " refused, "
        + disagreements.size() + " disagreements");
    assertEquals(List.of(), disagreements);
  }

  /**
   * A bad value stored while the policy did not apply to the object (here: before it carried the
   * binding's label) stays: writes that leave it as it is go through (a label, a finalizer as syncgc
   * adds and removes it); a write that changes it to another bad value is refused, to a good one taken.
   */
  @Test
  void aBadValueStoredBeforeStaysAndDoesNotBlockOtherWrites(TestNamespace ns) {
    awaitEnforced(ns);
    ConfigMap old = client.resource(new ConfigMapBuilder().withNewMetadata().withName("old")
        .withNamespace(ns.name()).addToAnnotations("syncgc.dev/timeout", "soon").endMetadata().build()).create();
    var resource = client.configMaps().inNamespace(ns.name()).withName(old.getMetadata().getName());

    MetadataPatches.label(resource, LABEL, labelValue); // now the binding selects it
    MetadataPatches.label(resource, "other", "write");
    resource.edit(c -> {
      c.getMetadata().getFinalizers().add("e2e.syncgc.dev/hold");
      return c;
    });
    resource.edit(c -> {
      c.getMetadata().getFinalizers().clear();
      return c;
    });
    assertEquals("soon", resource.get().getMetadata().getAnnotations().get("syncgc.dev/timeout"));

    KubernetesClientException refusal = null;
    try {
      resource.edit(c -> {
        c.getMetadata().getAnnotations().put("syncgc.dev/timeout", "later");
        return c;
      });
    } catch (KubernetesClientException e) {
      refusal = e;
    }
    assertNotNull(refusal, "changing one bad value for another was taken");
    assertTrue(refusal.getMessage().contains("syncgc.dev/timeout=\"later\" is invalid"), refusal.getMessage());

    resource.edit(c -> {
      c.getMetadata().getAnnotations().put("syncgc.dev/timeout", "90s");
      return c;
    });
    assertEquals("90s", resource.get().getMetadata().getAnnotations().get("syncgc.dev/timeout"));
  }

  /**
   * The operator's own writes to an object whose bad value was stored before the policy applied: it
   * adds its finalizer, reports the value (InvalidAnnotation, the Event stays), and on deletion removes
   * the finalizer while the binding selects the object; none of it is refused.
   */
  @Test
  void theOperatorsFinalizerPatchesGoThroughOnAnObjectWithABadValueStoredBefore(TestNamespace ns) {
    SharedOperator.get();
    awaitEnforced(ns);
    GenericKubernetesResource widget = Widgets.create(client, ns.name(), "old").synchronous()
        .annotate("syncgc.dev/timeout", "soon").apply();
    ObjectAwaits.awaitSyncgcFinalizer(client, widget, DEADLINE);
    Events.awaitContaining(client, widget, "Warning", "InvalidAnnotation", "syncgc.dev/timeout", "soon");

    MetadataPatches.label(Widgets.widget(client, ns.name(), "old"), LABEL, labelValue); // now the binding selects it
    assertTrue(refusal(ns, Map.of("syncgc.dev/timeout", "soon"), true).isPresent(), "the policy is in force");
    Widgets.widget(client, ns.name(), "old").delete();

    ObjectAwaits.awaitGone(client, widget, DEADLINE); // the operator removed its finalizer
  }

  // --- helpers

  /** Waits until the API server enforces the binding (a probe with a bad value is refused). */
  private static void awaitEnforced(TestNamespace ns) {
    Awaitility.await("the admission policy refuses syncgc.dev/propagation=Sideways").atMost(DEADLINE)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> refusal(ns, Map.of("syncgc.dev/propagation", "Sideways"), true).isPresent());
  }

  /** Creates ConfigMap "probe" labelled for the binding with these annotations; its refusal, if refused. */
  private static Optional<KubernetesClientException> refusal(TestNamespace ns, Map<String, String> annotations,
      boolean dryRun) {
    ConfigMap probe = new ConfigMapBuilder().withNewMetadata().withName("probe").withNamespace(ns.name())
        .addToLabels(LABEL, labelValue).addToAnnotations(annotations).endMetadata().build();
    try {
      if (dryRun) {
        client.resource(probe).dryRun().create();
      } else {
        client.resource(probe).create();
      }
      return Optional.empty();
    } catch (KubernetesClientException e) {
      return Optional.of(e);
    }
  }
}
