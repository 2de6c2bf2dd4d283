package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.InClusterOperator;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kubectl syncgc tree}, {@code why}, {@code status} and the errors, run as a user runs them
 * against the real API server and the running operator. (Preview against reality on random graphs:
 * {@code soak.KubectlPluginIT}.)
 */
@ExtendWith({SharedOperator.Extension.class, TestNamespace.Extension.class})
class KubectlSyncgcIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOLD = "example.com/hold";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void treeShowsTheWaveADiamondOnceAndARingWithItsPath(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource a = Widgets.create(client, ns.name(), "a").ownedBy(root)
        .annotate("syncgc.dev/deletion-wave", "1").apply();
    GenericKubernetesResource b = Widgets.create(client, ns.name(), "b").ownedBy(root).apply();
    Widgets.create(client, ns.name(), "d").ownedBy(a).ownedBy(b).apply();
    GenericKubernetesResource x = Widgets.create(client, ns.name(), "x").ownedBy(root).apply();
    GenericKubernetesResource y = Widgets.create(client, ns.name(), "y").ownedBy(x).apply();
    Widgets.widget(client, ns.name(), "x").edit(w -> {
      w.getMetadata().getOwnerReferences().add(Widgets.ownerReference(y));
      return w;
    });

    ProcessRunner.Result text = KubectlSyncgc.run("tree", "widgets.test.syncgc.dev/root", "-n", ns.name()).assertOk();

    List<String> lines = text.stdout().lines().toList();
    assertTrue(lines.get(0).startsWith("Widget/root  alive") && lines.get(0).contains(FINALIZER), text.stdout());
    assertTrue(lines.stream().anyMatch(l -> l.contains("Widget/a  alive") && l.contains("wave 1")), text.stdout());
    assertEquals(2, lines.stream().filter(l -> l.contains("Widget/d ")).count(), "d under a and under b: " + text.stdout());
    assertTrue(lines.stream().anyMatch(l -> l.contains("Widget/d") && l.contains("shown above")), text.stdout());
    assertTrue(lines.stream().anyMatch(l -> l.contains("cycle: Widget/x -> Widget/y -> Widget/x")), text.stdout());

    JsonNode json = JSON.readTree(KubectlSyncgc.run("tree", "widgets.test.syncgc.dev/root", "-n", ns.name(), "-o", "json")
        .assertOk().stdout());
    assertEquals("root", json.path("name").asText());
    assertEquals(3, json.path("dependents").size(), json.toString());
    ProcessRunner.Result owners = KubectlSyncgc.run("tree", "widgets.test.syncgc.dev/d", "-n", ns.name(), "--owners").assertOk();
    assertTrue(owners.stdout().contains("Widget/a") && owners.stdout().contains("Widget/b")
        && owners.stdout().contains("Widget/root"), owners.stdout());
  }

  @Test
  void whyNamesTheForeignFinalizerSyncgcWaitsForAndStatusListsTheDeletion(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource held = Widgets.create(client, ns.name(), "held").ownedBy(root).finalizer(HOLD).apply();

    ProcessRunner.Result before = KubectlSyncgc.run("why", "widgets.test.syncgc.dev/root", "-n", ns.name()).assertOk();
    assertTrue(before.stdout().contains("opted in: Synchronous, by its annotation syncgc.dev/propagation"),
        before.stdout());

    Widgets.widget(client, ns.name(), "root").delete();
    ObjectAwaits.awaitWidgetMarkedDeleted(client, ns.name(), "held"); // the root waits for it
    try {
      ProcessRunner.Result why = KubectlSyncgc.run("why", "widgets.test.syncgc.dev/root", "-n", ns.name()).assertOk();
      assertTrue(why.stdout().contains("is marked as deleted"), why.stdout());
      assertTrue(why.stdout().contains("syncgc.dev/GarbageCollectionInProgress: syncgc"), why.stdout());
      assertTrue(why.stdout().contains("Waiting for 1 dependent: Widget/" + ns.name() + "/held (held by finalizers ["
          + HOLD + "])"), "the words of the WaitingForDependents Event: " + why.stdout());
      assertTrue(why.stdout().contains("deadline: "), why.stdout());
      ProcessRunner.Result whyHeld = KubectlSyncgc.run("why", "widgets.test.syncgc.dev/held", "-n", ns.name()).assertOk();
      assertTrue(whyHeld.stdout().contains(HOLD + ": another controller (example.com)"), whyHeld.stdout());

      JsonNode status = JSON.readTree(KubectlSyncgc.run("status", "-n", ns.name(), "-o", "json").assertOk().stdout());
      JsonNode ours = KubectlSyncgc.deletionOf(status, root.getMetadata().getUid());
      assertEquals(1, ours.path("dependentsLeft").asInt(), ours.toString());
      if (InClusterOperator.selected()) { // the operator's health is read from the chart's Pod
        JsonNode pods = status.path("operator").path("pods");
        assertEquals(1, pods.size(), status.toString());
        assertTrue(pods.get(0).path("ready").asBoolean(), status.toString());
        assertEquals(InClusterOperator.NAMESPACE, status.path("operator").path("namespace").asText());
        assertTrue(status.path("graphObjects").asDouble() > 0, "graph size from the Pod's metrics: " + status);
      }
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
    }
    await("root gone once the hold is released").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> Widgets.widget(client, ns.name(), "root").get() == null);
  }

  @Test
  void errorsSayWhatIsWrongWithExitCodesScriptsCanUse(TestNamespace ns) throws Exception {
    ProcessRunner.Result unknownKind = KubectlSyncgc.run("tree", "gizmo/x", "-n", ns.name());
    assertEquals(2, unknownKind.exitCode(), unknownKind.describe());
    assertTrue(unknownKind.stderr().contains("no kind \"gizmo\""), unknownKind.describe());
    ProcessRunner.Result missing = KubectlSyncgc.run("why", "widgets.test.syncgc.dev/nothing", "-n", ns.name());
    assertEquals(2, missing.exitCode(), missing.describe());
    assertTrue(missing.stderr().contains("Widget nothing not found in namespace " + ns.name()), missing.describe());
    ProcessRunner.Result usage = KubectlSyncgc.run("preview", "no-slash");
    assertEquals(1, usage.exitCode(), usage.describe());

    Path unreachable = TestCluster.targetDir().resolve("unreachable.kubeconfig");
    Files.writeString(unreachable, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "
        + "'https://127.0.0.1:1', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\n"
        + "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n");
    ProcessRunner.Result noCluster = KubectlSyncgc.runAs(unreachable.toString(), "status");
    assertEquals(4, noCluster.exitCode(), noCluster.describe());
    assertTrue(noCluster.stderr().contains("cannot reach the API server"), noCluster.describe());

    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("nobody").endMetadata().build()).create();
    Widgets.create(client, ns.name(), "w").apply();
    ProcessRunner.Result forbidden = KubectlSyncgc.runAs(ServiceAccounts.kubeconfig(client, ns.name(), "nobody").toString(),
        "tree", "widgets.test.syncgc.dev/w", "-n", ns.name());
    assertEquals(3, forbidden.exitCode(), forbidden.describe());
    assertTrue(forbidden.stderr().contains("forbidden"), forbidden.describe());
  }

  /**
   * A token the API server does not accept: it answers 401 and, over HTTP/2, closes the connection
   * (GOAWAY) as it does for every request it cannot authenticate; that is a refused token, not an
   * unreachable server.
   */
  @Test
  void aTokenTheServerDoesNotAcceptIsNamedWithTheFix(TestNamespace ns) throws Exception {
    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("reader").endMetadata().build()).create();
    String kubeconfig = ServiceAccounts.kubeconfig(client, ns.name(), "reader").toString();

    ProcessRunner.Result wrongFlag = KubectlSyncgc.runAs(kubeconfig, "status", "-n", ns.name(), "--token", "not-a-token");
    assertEquals(4, wrongFlag.exitCode(), wrongFlag.describe());
    assertTrue(wrongFlag.stderr().contains("the token of --token was not accepted (401 Unauthorized)")
        && wrongFlag.stderr().contains("kubectl create token"), wrongFlag.describe());
    assertTrue(!wrongFlag.stderr().contains("cannot reach"), wrongFlag.describe());

    Path wrongFile = TestCluster.targetDir().resolve("wrong-token.kubeconfig");
    Files.writeString(wrongFile, Files.readString(Path.of(kubeconfig)).replaceAll("token: .*", "token: not-a-token"));
    ProcessRunner.Result wrongConfig = KubectlSyncgc.runAs(wrongFile.toString(), "tree", "widgets.test.syncgc.dev/w",
        "-n", ns.name());
    assertEquals(4, wrongConfig.exitCode(), wrongConfig.describe());
    assertTrue(wrongConfig.stderr().contains("the credentials of the kubeconfig were not accepted (401 Unauthorized)"),
        wrongConfig.describe());
  }
}
