package dev.syncgc.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kubeconfig handling as kubectl's, no API server needed (nothing is sent). */
class ClusterTest {
  @TempDir Path dir;

  @AfterEach
  void forgetTheFiles() {
    System.clearProperty(Config.KUBERNETES_KUBECONFIG_FILE);
  }

  /** A kubeconfig with one context {@code name} on cluster {@code cluster} at {@code server}. */
  private Path kubeconfig(String file, String name, String cluster, String server, String current) throws IOException {
    return Files.writeString(dir.resolve(file), "apiVersion: v1\nkind: Config\nclusters:\n- name: " + cluster
        + "\n  cluster: {server: '" + server + "'}\nusers:\n- name: " + name + "\n  user: {token: t-" + name + "}\n"
        + "contexts:\n- name: " + name + "\n  context: {cluster: " + cluster + ", user: " + name + ", namespace: ns-"
        + name + "}\n" + (current == null ? "" : "current-context: " + current + "\n"));
  }

  private static ClusterOptions options(String... kubeconfigContextAs) {
    ClusterOptions o = new ClusterOptions();
    o.kubeconfig = kubeconfigContextAs.length > 0 ? kubeconfigContextAs[0] : null;
    o.context = kubeconfigContextAs.length > 1 ? kubeconfigContextAs[1] : null;
    return o;
  }

  @Test
  void theFilesOfKubeconfigAreMergedTheFirstToSetAnEntryWins() throws IOException {
    Path first = kubeconfig("first", "a", "shared", "https://first.example:6443", null);
    Path second = kubeconfig("second", "b", "shared", "https://second.example:6443", "b");
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, first + File.pathSeparator + second);

    try (Cluster current = Cluster.connect(options())) {
      // the current-context of the second file, its cluster entry as the first file set it
      assertEquals("https://first.example:6443/", current.client.getConfiguration().getMasterUrl());
      assertEquals("t-b", current.client.getConfiguration().getAutoOAuthToken());
      assertEquals("ns-b", current.namespace);
    }
    try (Cluster a = Cluster.connect(options(null, "a"))) {
      assertEquals("t-a", a.client.getConfiguration().getAutoOAuthToken());
      assertEquals("ns-a", a.namespace);
    }
  }

  @Test
  void aContextNoFileHasIsAnErrorNotTheCurrentContextsCluster() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");

    CliException e = assertThrows(CliException.class, () -> Cluster.connect(options(file.toString(), "prod")).close());

    assertEquals(ExitCodes.NO_CLUSTER, e.exitCode());
    assertEquals("context \"prod\" not found in " + file + " (kubectl config get-contexts lists them)", e.getMessage());
  }

  @Test
  void asAndAsGroupImpersonateAsKubectlDoes() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    ClusterOptions o = options(file.toString());
    o.as = "system:serviceaccount:ns:viewer";
    o.asGroups.add("team-a");
    o.asGroups.add("team-b");

    try (Cluster c = Cluster.connect(o)) {
      assertEquals("system:serviceaccount:ns:viewer", c.client.getConfiguration().getImpersonateUsername());
      assertArrayEquals(new String[] {"team-a", "team-b"}, c.client.getConfiguration().getImpersonateGroups());
    }
    ClusterOptions groupOnly = options(file.toString());
    groupOnly.asGroups.add("team-a");
    CliException e = assertThrows(CliException.class, () -> Cluster.connect(groupOnly).close());
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertTrue(e.getMessage().contains("--as-group needs --as"), e.getMessage());
  }
}
