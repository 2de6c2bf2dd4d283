package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The policy CRD's schema says what PolicyTranslator takes (PolicySchemaIT sends bad and good
 * policies to a real API server; GoDurationTest checks the timeout's regular expression).
 */
class PolicySchemaTest {
  private static CustomResourceDefinitionVersion version;
  private static JSONSchemaProps spec;

  @BeforeAll
  static void generate() throws IOException {
    Path file = PolicyCrd.generate(Files.createTempDirectory("policy-crd-"));
    CustomResourceDefinition crd = new KubernetesSerialization().unmarshal(Files.readString(file), CustomResourceDefinition.class);
    assertEquals(List.of("syncgc"), crd.getSpec().getNames().getCategories(), "kubectl get syncgc lists policies");
    version = crd.getSpec().getVersions().get(0);
    spec = version.getSchema().getOpenAPIV3Schema().getProperties().get("spec");
  }

  @Test
  void propagationAndOnTimeoutAreEnumsOfTheJavaEnumsValues() {
    assertEquals(Arrays.stream(Propagation.values()).map(Propagation::value).toList(), enumOf("propagation"));
    assertEquals(Arrays.stream(OnTimeout.values()).map(OnTimeout::value).toList(), enumOf("onTimeout"));
  }

  /** A selector operator other than the four is refused when the policy is written, not only reported Ready=False. */
  @Test
  void selectorOperatorsAreAnEnumOfTheFourKubernetesOperators() {
    List<String> four = Arrays.stream(Selector.Operator.values()).map(Enum::name).toList();
    assertEquals(List.of("In", "NotIn", "Exists", "DoesNotExist"), four);
    for (String field : List.of("selector", "namespaceSelector")) {
      JSONSchemaProps operator = spec.getProperties().get(field).getProperties().get("matchExpressions")
          .getItems().getSchema().getProperties().get("operator");
      assertEquals(four, operator.getEnum() == null ? List.of()
          : operator.getEnum().stream().map(JsonNode::asText).toList(), field + ".matchExpressions[].operator");
    }
  }

  @Test
  void timeoutHasTheCelRuleGracePeriodAMinimumKindsAtLeastOne() {
    assertEquals(List.of(PolicySpec.TIMEOUT_RULE),
        spec.getProperties().get("timeout").getXKubernetesValidations().stream().map(ValidationRule::getRule).toList());
    assertEquals(0.0, spec.getProperties().get("gracePeriodSeconds").getMinimum());
    assertEquals(1L, spec.getProperties().get("kinds").getMinItems());
    assertEquals(List.of("kinds"), spec.getRequired());
  }

  @Test
  void propagationIsRequiredUnlessKeepIsTrue() {
    assertEquals(List.of(PolicySpec.PROPAGATION_OR_KEEP_RULE),
        spec.getXKubernetesValidations().stream().map(ValidationRule::getRule).toList());
    assertEquals("boolean", spec.getProperties().get("keep").getType());
  }

  @Test
  void conditionsAreAListMapByType() {
    JSONSchemaProps conditions = version.getSchema().getOpenAPIV3Schema().getProperties().get("status")
        .getProperties().get("conditions");
    assertEquals("map", conditions.getXKubernetesListType());
    assertEquals(List.of("type"), conditions.getXKubernetesListMapKeys());
    assertTrue(conditions.getItems().getSchema().getRequired().contains("type"));
  }

  @Test
  void ageIsTheLastColumn() {
    assertEquals(List.of("Propagation", "Priority", "Matched", "Ready", "Age"),
        version.getAdditionalPrinterColumns().stream().map(CustomResourceColumnDefinition::getName).toList());
  }

  /** The kind's pattern finds a character exactly where String.isBlank() (PolicyTranslator's test) says no. */
  @Test
  void notBlankPatternAgreesWithIsBlankOnEveryCharacterOfTheBasicPlane() {
    Pattern notBlank = Pattern.compile(PolicySpec.NOT_BLANK);
    for (char c = 0; c < Character.MAX_VALUE; c++) {
      if (!Character.isSurrogate(c)) {
        String s = String.valueOf(c);
        assertEquals(!s.isBlank(), notBlank.matcher(s).find(), "U+" + Integer.toHexString(c));
      }
    }
    assertTrue(notBlank.matcher(" \t*\u00A0").find());
    assertTrue(!notBlank.matcher(" \t\u2003\n").find());
  }

  private static List<String> enumOf(String field) {
    return spec.getProperties().get(field).getEnum().stream().map(JsonNode::asText).toList();
  }
}
