package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The reflectors build on the package kube, never the reverse: no class of kube names kube.reflector. */
class ReflectorDirectionTest {
  private static final Path KUBE = Path.of("src/main/java/dev/syncgc/kube");

  @Test
  void noClassOfKubeNamesTheReflectorPackage() throws IOException {
    List<Path> sources;
    try (Stream<Path> files = Files.list(KUBE)) {
      sources = files.filter(f -> f.toString().endsWith(".java")).toList();
    }
    assertFalse(sources.isEmpty(), "no sources under " + KUBE.toAbsolutePath());
    List<String> naming = sources.stream().filter(ReflectorDirectionTest::namesReflector)
        .map(f -> f.getFileName().toString()).toList();
    assertEquals(List.of(), naming, "classes of dev.syncgc.kube that use dev.syncgc.kube.reflector");
  }

  private static boolean namesReflector(Path source) {
    try {
      return Files.readString(source).contains("dev.syncgc.kube.reflector");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
