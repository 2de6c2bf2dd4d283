package dev.syncgc.e2e.support;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real plugin as a user runs it: {@code kubectl syncgc ...}, kubectl finding
 * {@code cli/bin/kubectl-syncgc} (which runs {@code cli/target/syncgc-cli.jar}) on PATH.
 */
public final class KubectlSyncgc {
  private KubectlSyncgc() {}

  /** {@code kubectl syncgc args...} against the test cluster. */
  /** The one deletion of {@code status -o json} whose owner has this uid; fails unless there is exactly one. */
  public static com.fasterxml.jackson.databind.JsonNode deletionOf(com.fasterxml.jackson.databind.JsonNode status,
      String uid) {
    List<com.fasterxml.jackson.databind.JsonNode> found = new ArrayList<>();
    status.path("deletions").forEach(d -> {
      if (d.path("uid").asText().equals(uid)) {
        found.add(d);
      }
    });
    org.junit.jupiter.api.Assertions.assertEquals(1, found.size(), status.toString());
    return found.get(0);
  }

  public static ProcessRunner.Result run(String... args) {
    return runAs(TestCluster.get().kubeconfig().toString(), args);
  }

  /** {@code kubectl syncgc args...} with this kubeconfig. */
  public static ProcessRunner.Result runAs(String kubeconfig, String... args) {
    List<String> command = new ArrayList<>(List.of(TestCluster.get().kubectl(), "syncgc"));
    command.addAll(List.of(args));
    Map<String, String> env = new HashMap<>();
    env.put("KUBECONFIG", kubeconfig);
    env.put("PATH", TestCluster.repoRoot().resolve("cli").resolve("bin") + File.pathSeparator + System.getenv("PATH"));
    env.put("NO_COLOR", "1");
    return ProcessRunner.run(command, env, Duration.ofSeconds(90));
  }
}
