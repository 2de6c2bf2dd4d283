package dev.syncgc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.cli.commands.WhyCommandAccess;
import org.junit.jupiter.api.Test;

/** Exit codes and messages that need no cluster. */
class MainTest {
  @Test
  void helpIsOkAndAnUnknownCommandOrFlagIsAUsageError() {
    assertEquals(ExitCodes.OK, Main.run("--help"));
    assertEquals(ExitCodes.USAGE, Main.run("explode"));
    assertEquals(ExitCodes.USAGE, Main.run("tree", "--no-such-flag", "widget/x"));
    assertEquals(ExitCodes.USAGE, Main.run("tree"));
    assertEquals(ExitCodes.USAGE, Main.run("why", "widget", "a", "b"));
    assertEquals(ExitCodes.USAGE, Main.run("delete", "widget/x", "--cascade=sideways"));
    assertEquals(ExitCodes.USAGE, Main.run("delete", "widget/x", "-o", "yaml"));
  }

  @Test
  void aKubeconfigThatCannotBeReadMeansNoCluster() {
    assertEquals(ExitCodes.NO_CLUSTER, Main.run("status", "--kubeconfig", "/nonexistent/kubeconfig"));
  }

  @Test
  void finalizersAreAttributedToTheirController() {
    assertEquals("syncgc", WhyCommandAccess.holder("syncgc.dev/GarbageCollectionInProgress"));
    assertEquals("the built-in garbage collector (kube-controller-manager)", WhyCommandAccess.holder("foregroundDeletion"));
    assertEquals("Kubernetes (kubernetes.io)", WhyCommandAccess.holder("kubernetes.io/pvc-protection"));
    assertEquals("another controller (example.com)", WhyCommandAccess.holder("example.com/hold"));
  }
}
