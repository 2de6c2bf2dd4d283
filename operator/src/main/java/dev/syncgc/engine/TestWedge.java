package dev.syncgc.engine;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test hook, off unless {@value #ENV} names a file: while that file exists, every worker that takes
 * an object waits before syncing it, i.e. the operator is wedged on purpose (LivenessIT checks that
 * {@code /healthz} then fails). Deleting the file lets the workers go on.
 */
final class TestWedge {
  static final String ENV = "SYNCGC_TEST_WEDGE_WORKERS_FILE";
  private static final TestWedge OFF = new TestWedge(null);
  private final Path file;

  private TestWedge(Path file) {
    this.file = file;
  }

  static TestWedge fromEnvironment() {
    String value = System.getenv(ENV);
    return value == null || value.isBlank() ? OFF : new TestWedge(Path.of(value));
  }

  void holdWhileSet() {
    if (file == null) {
      return;
    }
    while (Files.exists(file)) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
