package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import dev.syncgc.kube.ClientConfigs;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The local control plane: the client, its kubeconfig (for the operator), namespaces. */
final class Cluster implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Cluster.class);
  static final String LABEL = "bench.syncgc.dev/run";

  final KubernetesClient client;
  final Api api;
  final Path kubeconfig;
  final Path script;

  private Cluster(KubernetesClient client, Path kubeconfig, Path script) {
    this.client = client;
    this.api = new Api(client);
    this.kubeconfig = kubeconfig;
    this.script = script;
  }

  /** KUBECONFIG if set, else the local control plane's (`cluster.sh env`). */
  static Cluster connect(Path script) throws IOException, InterruptedException {
    String env = System.getenv("KUBECONFIG");
    Path kubeconfig;
    if (env != null && !env.isBlank()) {
      kubeconfig = Path.of(env.split(java.io.File.pathSeparator)[0]).toAbsolutePath();
    } else {
      Process p = new ProcessBuilder("bash", script.toString(), "env").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      kubeconfig = out.lines().filter(l -> l.startsWith("export KUBECONFIG=")).findFirst()
          .map(l -> Path.of(l.substring("export KUBECONFIG=".length()).trim()))
          .orElseThrow(() -> new IllegalStateException("no KUBECONFIG, and `" + script + " env` printed none"));
    }
    if (!Files.isRegularFile(kubeconfig)) {
      throw new IllegalStateException("kubeconfig " + kubeconfig + " does not exist: start the control plane with "
          + script + " up");
    }
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig.toString());
    Config config = new ConfigBuilder(ClientConfigs.withoutTokenRefreshForCertificates(Config.autoConfigure(null)))
        .withMaxConcurrentRequests(1024)
        .withMaxConcurrentRequestsPerHost(1024)
        .withRequestTimeout(120_000)
        .build();
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    return new Cluster(client, kubeconfig, script);
  }

  String serverVersion() {
    return client.getKubernetesVersion().getGitVersion();
  }

  void createNamespace(String name, String run) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .withLabels(Map.of(LABEL, run)).endMetadata().build()).create();
  }

  /** Deletes a namespace without waiting (the namespace controller empties it in the background). */
  void deleteNamespace(String name) {
    try {
      client.namespaces().withName(name).delete();
    } catch (KubernetesClientException e) {
      log.warn("could not delete namespace {}: {}", name, e.getMessage());
    }
  }

  /** Deletes the (empty) namespace and waits until it is gone (at most 300 s), so that its cleanup overlaps nothing. */
  void deleteNamespaceAndWait(String name) throws InterruptedException {
    deleteNamespace(name);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (client.namespaces().withName(name).get() != null && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
  }

  /** The namespace's Events, counted by reason: reason=count;... */
  String eventsByReason(String namespace) {
    Map<String, Long> counts = client.v1().events().inNamespace(namespace).list().getItems().stream()
        .collect(Collectors.groupingBy(e -> String.valueOf(e.getReason()), TreeMap::new,
            Collectors.summingLong(e -> e.getCount() == null ? 1 : e.getCount())));
    return counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
  }

  /** Deletes the namespaces with this run label and waits until they are gone. */
  void deleteNamespacesAndWait(String run, long timeoutSeconds) throws InterruptedException {
    var selected = client.namespaces().withLabel(LABEL, run);
    if (selected.list().getItems().isEmpty()) {
      return;
    }
    log.info("deleting the namespaces labelled {}={} and waiting until they are gone", LABEL, run);
    selected.delete();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (!selected.list().getItems().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("namespaces labelled " + LABEL + "=" + run + " still there after "
            + timeoutSeconds + " s");
      }
      Thread.sleep(1000);
    }
  }

  /** Bench objects still in the namespace (0 when the run cleaned up everything). */
  long remainingItems(String namespace) {
    var list = client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(namespace)
        .list(new ListOptionsBuilder().withLimit(1L).build());
    if (list.getItems().isEmpty()) {
      return 0;
    }
    Long more = list.getMetadata().getRemainingItemCount();
    return 1 + (more == null ? 0 : more);
  }

  /** Waits (up to 120 s) until syncgc has put its finalizer on the bench item {@code namespace/name}. */
  void awaitFinalizer(String namespace, String name) throws InterruptedException {
    var item = client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(namespace).withName(name);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      GenericKubernetesResource r = item.get();
      if (r != null && r.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("syncgc did not put its finalizer on " + namespace + "/" + name + " in 120 s");
      }
      Thread.sleep(50);
    }
  }

  /** The names of the bench objects left in a namespace. */
  Set<String> remainingNames(String namespace) {
    return client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(namespace).list().getItems().stream()
        .map(o -> o.getMetadata().getName()).collect(Collectors.toSet());
  }

  /**
   * The namespaced kinds served with list, watch and delete (each group's preferred version, Events left out):
   * what syncgc tracks by default, so what its freshness check may LIST in a namespace.
   */
  int namespacedKinds() {
    List<String> versions = new ArrayList<>(List.of("v1"));
    client.getApiGroups().getGroups().forEach(g -> versions.add(g.getPreferredVersion().getGroupVersion()));
    int n = 0;
    for (String version : versions) {
      for (var r : client.getApiResources(version).getResources()) {
        if (!r.getName().contains("/") && Boolean.TRUE.equals(r.getNamespaced()) && !"Event".equals(r.getKind())
            && r.getVerbs().containsAll(List.of("list", "watch", "delete"))) {
          n++;
        }
      }
    }
    return n;
  }

  @Override
  public void close() {
    client.close();
  }
}
