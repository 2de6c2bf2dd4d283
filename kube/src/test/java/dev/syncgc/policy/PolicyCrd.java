package dev.syncgc.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Generates the policy CRD: Fabric8's CRDGenerator over {@link GarbageCollectionPolicy} (its
 * annotations give the names, the category, the printer columns, the required fields, the minimums,
 * the patterns and the CEL rule on the timeout), then what those annotations cannot say:
 * <ul>
 *   <li>the enums of {@code spec.propagation} and {@code spec.onTimeout}, from the values of
 *       {@link Propagation} and {@link OnTimeout} (the fields stay strings in Java, so that a policy
 *       stored before the schema refused bad values is still read, and reported Ready=False);
 *   <li>the operator of each {@code matchExpressions} entry of {@code spec.selector} and
 *       {@code spec.namespaceSelector}: an enum of the four Kubernetes operators ({@link Selector.Operator});
 *   <li>each entry of {@code spec.usersFrom}: a namespace name or {@code *} (pattern, maxLength 63);
 *   <li>{@code status.conditions} as a list-map keyed by {@code type} (type and status required);
 *   <li>the printer columns in the order the class declares them, Age last (the generator sorts them
 *       by JSON path, which puts .metadata.creationTimestamp first).
 * </ul>
 * CrdFilesTest checks that the CRDs in crds/ and the chart's files/crds/ are what this generates; {@code make crds}
 * writes them.
 */
final class PolicyCrd {
  static final String FILE = "garbagecollectionpolicies.syncgc.dev-v1.yml";

  private PolicyCrd() {}

  /** Generates the CRD into {@code dir}; returns its file. */
  static Path generate(Path dir) throws IOException {
    Files.createDirectories(dir);
    new CRDGenerator()
        .inOutputDir(dir.toFile())
        .forCRDVersions("v1")
        .customResourceClasses(GarbageCollectionPolicy.class)
        .withPostProcessor(new CRDPostProcessor() {
          @Override
          public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
            postProcess((CustomResourceDefinition) crd);
            return crd;
          }
        })
        .generate();
    return dir.resolve(FILE);
  }

  static void postProcess(CustomResourceDefinition crd) {
    for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
      JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();
      JSONSchemaProps spec = root.getProperties().get("spec");
      spec.getProperties().get("propagation").setEnum(values(Arrays.stream(Propagation.values()).map(Propagation::value)));
      spec.getProperties().get("onTimeout").setEnum(values(Arrays.stream(OnTimeout.values()).map(OnTimeout::value)));
      for (String selector : List.of("selector", "namespaceSelector")) {
        spec.getProperties().get(selector).getProperties().get("matchExpressions").getItems().getSchema()
            .getProperties().get("operator").setEnum(values(Arrays.stream(Selector.Operator.values()).map(Enum::name)));
      }
      JSONSchemaProps usersFrom = spec.getProperties().get("usersFrom").getItems().getSchema();
      usersFrom.setPattern(PolicySpec.USERS_FROM_ENTRY);
      usersFrom.setMaxLength(63L);

      JSONSchemaProps conditions = root.getProperties().get("status").getProperties().get("conditions");
      conditions.setXKubernetesListType("map");
      conditions.setXKubernetesListMapKeys(List.of("type"));
      conditions.getItems().getSchema().setRequired(List.of("type", "status"));

      List<String> declared = Arrays.stream(GarbageCollectionPolicy.class.getAnnotationsByType(AdditionalPrinterColumn.class))
          .map(AdditionalPrinterColumn::name).toList();
      List<CustomResourceColumnDefinition> columns = new ArrayList<>(version.getAdditionalPrinterColumns());
      columns.sort(Comparator.comparingInt(c -> declared.indexOf(c.getName())));
      version.setAdditionalPrinterColumns(columns);
    }
  }

  private static List<JsonNode> values(Stream<String> values) {
    return values.<JsonNode>map(TextNode::valueOf).toList();
  }
}
