package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cluster the tests run against: the one named by {@code KUBECONFIG} if set, otherwise the
 * local control plane of {@code e2e/cluster.sh}, started on first use. Never torn down here.
 */
public final class TestCluster {
  private static final long UP_DEADLINE_MINUTES = 60;
  private static final String KWOK_NODE = "kwok-node-0";
  private static TestCluster instance;

  /**
   * {@code 1}: the run is meant for a kube-controller-manager without its garbage collector
   * ({@code make e2e-nogc}), so that what a test sees deleted was deleted by syncgc.
   */
  public static final String NO_KCM_GC = "SYNCGC_E2E_NO_KCM_GC";

  private final boolean local;
  private Boolean builtInCollector;
  private final Path kubeconfig;
  private final Path toolsDir; // null: look kubectl and helm up on PATH
  private final KubernetesClient client;

  private TestCluster(boolean local, Path kubeconfig, Path toolsDir) {
    this.local = local;
    this.kubeconfig = kubeconfig;
    this.toolsDir = toolsDir;
    Config config = Config.fromKubeconfig(kubeconfig.toFile());
    this.client = new KubernetesClientBuilder().withConfig(config).build();
    installProjectCrds();
  }

  /** The operator's own CRDs (crds/), as the Helm chart would install them. */
  private void installProjectCrds() {
    try (var files = java.nio.file.Files.list(repoRoot().resolve("crds"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
        try (var in = java.nio.file.Files.newInputStream(file)) {
          client.load(in).forceConflicts().serverSideApply();
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  public static synchronized TestCluster get() {
    if (instance == null) {
      instance = start();
      if (setting(NO_KCM_GC) != null) {
        instance.builtInCollector(); // a run meant without the collector checks it at once
      }
    }
    return instance;
  }

  public KubernetesClient client() {
    return client;
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** True when the cluster is the local one of {@code e2e/cluster.sh} (KWOK node, no kubelet). */
  public boolean isLocal() {
    return local;
  }

  /**
   * Whether kube-controller-manager runs its garbage collector. On the local control plane its
   * {@code /healthz?verbose}, which lists the controllers it runs, says ({@code e2e/cluster.sh
   * builtin-gc}), and it must agree with {@link #NO_KCM_GC}: a run meant to show syncgc's own cascade
   * proves nothing beside a collector that does the work, and one meant with the collector fails
   * where it is missing. Elsewhere (kind) the setting alone says; unset means it runs.
   */
  public synchronized boolean builtInCollector() {
    if (builtInCollector == null) {
      boolean meantOff = "1".equals(setting(NO_KCM_GC));
      boolean on = !meantOff;
      if (local) {
        Path log = targetDir().resolve("cluster-builtin-gc.log");
        List<String> said = run(List.of("bash", repoRoot().resolve("e2e").resolve("cluster.sh").toString(),
            "builtin-gc"), log, 1);
        on = said.contains("on");
        if (on == meantOff) {
          throw new IllegalStateException("kube-controller-manager of the local control plane runs "
              + (on ? "with" : "without") + " its garbage collector, but " + NO_KCM_GC + " is "
              + (meantOff ? "1" : "not set") + (meantOff ? ": start it with SYNCGC_KCM_CONTROLLERS leaving out"
              + " garbage-collector-controller (make e2e-nogc does)" : ": unset SYNCGC_KCM_CONTROLLERS, or set "
              + NO_KCM_GC + "=1 and run the tests of e2e/nogc/tests.txt only"));
        }
      }
      builtInCollector = on;
      System.out.println("[cluster] kube-controller-manager " + (on ? "runs" : "does not run")
          + " its garbage collector" + (local ? " (its /healthz?verbose)" : " (" + NO_KCM_GC + ")"));
    }
    return builtInCollector;
  }

  public String kubectl() {
    return tool("kubectl");
  }

  public String helm() {
    return tool("helm");
  }

  /**
   * A node Pods can be bound to with {@code spec.nodeName}: {@code SYNCGC_E2E_NODE} (system
   * property or environment) if set; else the KWOK node locally; else the first Ready node,
   * preferring nodes without NoSchedule taints.
   */
  public String nodeName() {
    String configured = setting("SYNCGC_E2E_NODE");
    if (configured != null) {
      return configured;
    }
    if (local) {
      return KWOK_NODE;
    }
    return client.nodes().list().getItems().stream()
        .filter(TestCluster::isReady)
        .min(Comparator.comparing(TestCluster::hasNoScheduleTaint))
        .map(n -> n.getMetadata().getName())
        .orElseThrow(() -> new IllegalStateException("the cluster has no Ready node"));
  }

  public static Path repoRoot() {
    String root = System.getProperty("syncgc.repoRoot");
    return Path.of(root != null ? root : "..").toAbsolutePath().normalize();
  }

  /** {@code e2e/target}, where logs of the harness go. */
  public static Path targetDir() {
    return repoRoot().resolve("e2e").resolve("target");
  }

  static String setting(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      value = System.getenv(name);
    }
    return value == null || value.isBlank() ? null : value;
  }

  private static TestCluster start() {
    String env = System.getenv("KUBECONFIG");
    if (env != null && !env.isBlank()) {
      // kubectl accepts a list; the first file is the one holding the current context in practice.
      String first = env.split(File.pathSeparator)[0];
      return new TestCluster(false, Path.of(first).toAbsolutePath(), null);
    }
    Path script = repoRoot().resolve("e2e").resolve("cluster.sh");
    Path log = targetDir().resolve("cluster-up.log");
    List<String> upOutput = run(List.of("bash", script.toString(), "up"), log, UP_DEADLINE_MINUTES);
    Path kubeconfig = Path.of(lastExport(upOutput, "KUBECONFIG", log));
    List<String> envOutput =
        run(List.of("bash", script.toString(), "env"), targetDir().resolve("cluster-env.log"), 1);
    String path = lastExport(envOutput, "PATH", log);
    Path tools = Path.of(path.substring(0, path.indexOf(':') < 0 ? path.length() : path.indexOf(':')));
    return new TestCluster(true, kubeconfig, tools);
  }

  private static List<String> run(List<String> command, Path log, long deadlineMinutes) {
    try {
      Files.createDirectories(log.getParent());
      Process p = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
      if (!p.waitFor(deadlineMinutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " did not finish in " + deadlineMinutes + " min; see " + log);
      }
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed with exit code "
            + p.exitValue() + "; see " + log + "\n" + Logs.tail(lines, 30));
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String lastExport(List<String> lines, String variable, Path log) {
    String prefix = "export " + variable + "=";
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).startsWith(prefix)) {
        return lines.get(i).substring(prefix.length()).trim();
      }
    }
    throw new IllegalStateException("no '" + prefix + "' line in the output of cluster.sh; see " + log);
  }

  private String tool(String name) {
    if (toolsDir != null) {
      return toolsDir.resolve(name).toString();
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return name;
  }

  private static boolean isReady(Node node) {
    return node.getStatus() != null && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean hasNoScheduleTaint(Node node) {
    return node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> "NoSchedule".equals(t.getEffect()));
  }
}
