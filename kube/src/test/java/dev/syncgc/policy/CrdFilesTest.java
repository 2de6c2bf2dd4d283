package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The build check that keeps the committed CRDs identical to what the Java classes generate:
 * {@code crds/} and the chart's {@code crds/}. After changing the classes, run {@code make crds}.
 */
class CrdFilesTest {
  private static final String FILE = "garbagecollectionpolicies.syncgc.dev-v1.yml";
  private static final Path GENERATED = Path.of("target/classes/META-INF/fabric8", FILE);

  @Test
  void committedCrdMatchesTheGeneratedOne() throws IOException {
    assertEquals(Files.readString(GENERATED), Files.readString(Path.of("../crds", FILE)),
        "crds/" + FILE + " differs from the classes: run make crds");
  }

  @Test
  void chartCrdMatchesTheGeneratedOne() throws IOException {
    assertEquals(Files.readString(GENERATED), Files.readString(Path.of("../helm/syncgc/crds", FILE)),
        "helm/syncgc/crds/" + FILE + " differs from the classes: run make crds");
  }
}
