package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The build check that keeps the committed CRDs identical to what the Java classes generate
 * (PolicyCrd): {@code crds/} and the chart's copy in {@code files/crds/} (which its
 * {@code templates/crds.yaml} renders with the release's labels). After changing the classes, run
 * {@code make crds}, which runs this test with {@code -Dsyncgc.crds.update=true}: it then writes both.
 */
class CrdFilesTest {
  private static final Path COMMITTED = Path.of("../crds", PolicyCrd.FILE);
  private static final Path CHART = Path.of("../helm/syncgc/files/crds", PolicyCrd.FILE);
  private static String generated;

  @BeforeAll
  static void generate() throws IOException {
    generated = Files.readString(PolicyCrd.generate(Path.of("target/generated-crds")));
    if (Boolean.getBoolean("syncgc.crds.update")) {
      Files.writeString(COMMITTED, generated);
      Files.writeString(CHART, generated);
    }
  }

  @Test
  void committedCrdMatchesTheGeneratedOne() throws IOException {
    assertEquals(generated, Files.readString(COMMITTED),
        "crds/" + PolicyCrd.FILE + " differs from the classes: run make crds");
  }

  @Test
  void chartCrdMatchesTheGeneratedOne() throws IOException {
    assertEquals(generated, Files.readString(CHART),
        "helm/syncgc/files/crds/" + PolicyCrd.FILE + " differs from the classes: run make crds");
  }
}
