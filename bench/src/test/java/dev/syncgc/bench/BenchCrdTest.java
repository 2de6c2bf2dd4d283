package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** BenchItem is examples/widget-crd.yaml's Widget under the benchmark's group and names. */
class BenchCrdTest {
  /** The tests run in bench/; the benchmark itself from the repository's root (--widget-crd's default). */
  private static final Path FILE = Path.of("..", "examples", "widget-crd.yaml");

  @Test
  void benchItemIsTheWidgetOfTheExampleUnderItsOwnGroupAndNames() throws IOException {
    CustomResourceDefinition example;
    try (InputStream in = Files.newInputStream(FILE)) {
      example = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    CustomResourceDefinition crd = BenchCrd.crd(FILE);
    assertEquals("benchitems.bench.syncgc.dev", crd.getMetadata().getName());
    assertEquals(BenchCrd.GROUP, crd.getSpec().getGroup());
    assertEquals("Namespaced", crd.getSpec().getScope());
    assertEquals(BenchCrd.KIND, crd.getSpec().getNames().getKind());
    assertEquals("BenchItemList", crd.getSpec().getNames().getListKind());
    assertEquals(BenchCrd.PLURAL, crd.getSpec().getNames().getPlural());
    assertEquals("benchitem", crd.getSpec().getNames().getSingular());
    assertEquals(example.getSpec().getVersions(), crd.getSpec().getVersions(), "the example's versions and schema");
    assertEquals(BenchCrd.VERSION, crd.getSpec().getVersions().get(0).getName());
  }
}
