package dev.syncgc.e2e.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** The test CRDs are examples/widget-crd.yaml in the test group, without a cluster. */
class TestCrdsTest {

  @Test
  void widgetIsTheExampleInTheTestGroup() throws IOException {
    CustomResourceDefinition example;
    try (InputStream in = Files.newInputStream(TestCrds.WIDGET_CRD_FILE)) {
      example = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    CustomResourceDefinition widget = TestCrds.crd(TestCrds.WIDGET);
    assertEquals("widgets.test.syncgc.dev", widget.getMetadata().getName());
    assertEquals("test.syncgc.dev", widget.getSpec().getGroup());
    assertEquals("Namespaced", widget.getSpec().getScope());
    assertEquals(example.getSpec().getNames(), widget.getSpec().getNames(), "the example's names");
    assertEquals(example.getSpec().getVersions(), widget.getSpec().getVersions(), "the example's versions and schema");
    assertEquals("example.syncgc.dev", example.getSpec().getGroup(), "make demo's group, not the tests'");
  }

  @Test
  void clusterWidgetIsTheExampleClusterScoped() {
    CustomResourceDefinition cluster = TestCrds.crd(TestCrds.CLUSTER_WIDGET);
    assertEquals("clusterwidgets.test.syncgc.dev", cluster.getMetadata().getName());
    assertEquals("test.syncgc.dev", cluster.getSpec().getGroup());
    assertEquals("Cluster", cluster.getSpec().getScope());
    assertEquals("ClusterWidget", cluster.getSpec().getNames().getKind());
    assertEquals("ClusterWidgetList", cluster.getSpec().getNames().getListKind());
    assertEquals("clusterwidgets", cluster.getSpec().getNames().getPlural());
    assertEquals("clusterwidget", cluster.getSpec().getNames().getSingular());
    assertEquals(TestCrds.crd(TestCrds.WIDGET).getSpec().getVersions(), cluster.getSpec().getVersions());
  }

  /** What the tests write: any spec and any status (kept, not pruned). */
  @Test
  void schemaKeepsAnySpecAndStatus() {
    var versions = TestCrds.crd(TestCrds.WIDGET).getSpec().getVersions();
    assertEquals(1, versions.size());
    assertEquals(TestCrds.VERSION, versions.get(0).getName());
    assertTrue(versions.get(0).getServed() && versions.get(0).getStorage());
    JSONSchemaProps schema = versions.get(0).getSchema().getOpenAPIV3Schema();
    for (String field : new String[] {"spec", "status"}) {
      JSONSchemaProps props = schema.getProperties().get(field);
      assertEquals("object", props.getType(), field);
      assertEquals(Boolean.TRUE, props.getXKubernetesPreserveUnknownFields(), field);
    }
  }
}
