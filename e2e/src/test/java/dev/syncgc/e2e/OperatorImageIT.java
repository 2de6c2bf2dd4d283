package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator image built from the repository's Dockerfile (e2e/images.sh) runs as the chart runs
 * it: as user 65532, with a read-only root file system and a writable /tmp only, and deletes a tree
 * synchronously. Run by {@code make test-image}, which builds the image and passes its name in
 * {@code syncgc.operatorImage}; the default suite leaves it out (CI starts no Docker engine yet).
 */
@ExtendWith(TestNamespace.Extension.class)
class OperatorImageIT {
  private static final String CONTAINER = "syncgc-operator-image-it";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void theImageRunsAsNonRootOnAReadOnlyRootAndDeletesATreeLeavesFirst(TestNamespace ns) throws Exception {
    String image = System.getProperty("syncgc.operatorImage", "");
    assertTrue(!image.isBlank(), "set -Dsyncgc.operatorImage (make test-image builds the image and sets it)");
    ProcessRunner.Result user = docker("image", "inspect", "--format", "{{.Config.User}}", image).assertOk();
    assertEquals("65532:65532", user.stdout().trim(), "the image runs as the non-root user the chart expects");

    Path kubeconfig = containerKubeconfig();
    int port = freePort();
    SharedOperator.pause(); // the container is the only operator while this runs
    docker("rm", "-f", CONTAINER);
    try {
      docker("run", "-d", "--name", CONTAINER, "--network", "host", "--read-only", "--tmpfs", "/tmp",
          "--user", "65532:65532", "-v", kubeconfig + ":/etc/syncgc/kubeconfig:ro",
          "-e", "KUBECONFIG=/etc/syncgc/kubeconfig", image, "--http-port", Integer.toString(port)).assertOk();
      HttpClient http = HttpClient.newHttpClient();
      try {
        await("the container's /readyz").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
            .ignoreExceptions().until(() -> http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/readyz")).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
      } catch (RuntimeException e) {
        throw new AssertionError("the operator container is not ready:\n" + docker("logs", "--tail", "40", CONTAINER)
            .output(), e);
      }
      GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous()
          .applyAndAwaitFinalizer(Duration.ofSeconds(30));
      GenericKubernetesResource child = Widgets.create(client, ns.name(), "child").ownedBy(root).apply();
      Widgets.create(client, ns.name(), "leaf").ownedBy(child).apply();
      try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
        Widgets.widget(client, ns.name(), "root").delete();

        order.awaitDeleted(Duration.ofSeconds(60), "root", "child", "leaf");
        order.assertBefore("leaf", "child");
        order.assertBefore("child", "root");
        order.checkWatches();
      }
    } finally {
      docker("rm", "-f", CONTAINER);
      SharedOperator.resume();
    }
  }

  /** A ServiceAccount's kubeconfig with the CA inlined: the container cannot read the host's files. */
  private Path containerKubeconfig() throws IOException {
    String namespace = "syncgc-image-it";
    client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
        .withName(namespace).endMetadata().build()).createOr(existing -> existing.update());
    client.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("operator").endMetadata().build()).createOr(existing -> existing.update());
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
        .withName("syncgc-image-it").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
        .withKind("ClusterRole").withName("cluster-admin").endRoleRef().addNewSubject().withKind("ServiceAccount")
        .withName("operator").withNamespace(namespace).endSubject().build()).createOr(existing -> existing.update());
    String text = Files.readString(ServiceAccounts.kubeconfig(client, namespace, "operator"));
    Matcher ca = Pattern.compile("certificate-authority: (\\S+)").matcher(text);
    if (ca.find()) {
      String data = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(ca.group(1))));
      text = ca.replaceFirst("certificate-authority-data: " + data);
    }
    Path file = TestCluster.targetDir().resolve("image-it").resolve("kubeconfig");
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    return file;
  }

  private static ProcessRunner.Result docker(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("docker"));
    command.addAll(List.of(args));
    return ProcessRunner.run(command, Map.of(), Duration.ofMinutes(2));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
