package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC "In use" in {@code kubectl syncgc}: {@code tree}, {@code why} and {@code preview} show uses
 * beside ownership, {@code status} counts in-use holds; against the real API server and operator.
 * Widgets are named with their group: {@code make demo} serves a second Widget kind.
 */
@ExtendWith({SharedOperator.Extension.class, TestNamespace.Extension.class})
class KubectlSyncgcUsesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USES = "syncgc.dev/uses";
  private static final String WIDGETS = "widgets.test.syncgc.dev";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void treeShowsUsesBesideOwnershipAndPreviewDeletesUsersFirst(TestNamespace ns) throws Exception {
    GenericKubernetesResource app = Widgets.create(client, ns.name(), "app").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "db").ownedBy(app).annotate("syncgc.dev/deletion-wave", "1").apply();
    Widgets.create(client, ns.name(), "job").ownedBy(app).annotate(USES, WIDGETS + "/db, cm/settings").apply();

    ProcessRunner.Result tree = KubectlSyncgc.run("tree", WIDGETS + "/app", "-n", ns.name()).assertOk();

    List<String> lines = tree.stdout().lines().toList();
    assertTrue(lines.stream().anyMatch(l -> l.endsWith("⇠ used by Widget/job  alive")), tree.stdout());
    assertTrue(lines.stream().anyMatch(l -> l.endsWith("⇢ uses Widget/db  alive")), tree.stdout());
    assertTrue(lines.stream().anyMatch(l -> l.contains("⇢ uses ConfigMap/settings")),
        "a short name names its kind in " + USES + ", as in the operator: " + tree.stdout());
    JsonNode json = JSON.readTree(KubectlSyncgc.run("tree", WIDGETS + "/app", "-n", ns.name(), "-o", "json")
        .assertOk().stdout());
    JsonNode db = json.path("dependents").get(0);
    assertEquals("db", db.path("name").asText(), json.toString());
    assertEquals("job", db.path("usedBy").get(0).path("name").asText(), json.toString());

    JsonNode preview = JSON.readTree(KubectlSyncgc.run("preview", WIDGETS + "/app", "-n", ns.name(), "-o", "json")
        .assertOk().stdout());
    List<String> order = new ArrayList<>();
    preview.path("delete").forEach(d -> order.add(d.path("name").asText()));
    assertEquals(List.of("job", "db", "app"), order, "the user first, though db's wave is higher: " + preview);
    assertEquals("job", preview.path("delete").get(1).path("afterUsers").get(0).path("name").asText(), preview.toString());
    ProcessRunner.Result text = KubectlSyncgc.run("preview", WIDGETS + "/app", "-n", ns.name()).assertOk();
    assertTrue(text.stdout().contains("  Widget/" + ns.name() + "/db  after its user Widget/" + ns.name() + "/job"),
        text.stdout());
  }

  @Test
  void whyAndStatusNameTheUsersAnObjectUnderDeletionWaitsFor(TestNamespace ns) throws Exception {
    GenericKubernetesResource store = Widgets.create(client, ns.name(), "store").synchronous().applyAndAwaitFinalizer();
    ConfigMap reader = client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata()
        .withName("reader").addToAnnotations(USES, WIDGETS + "/store").endMetadata().build()).create();
    String user = "ConfigMap/" + ns.name() + "/reader";

    ProcessRunner.Result alive = KubectlSyncgc.run("why", WIDGETS + "/store", "-n", ns.name()).assertOk();
    assertTrue(alive.stdout().contains("Used by (" + USES + "), which deleting it would wait for first, with no"
        + " deadline:\n  " + user + "  alive"), alive.stdout());
    ProcessRunner.Result preview = KubectlSyncgc.run("preview", WIDGETS + "/store", "-n", ns.name()).assertOk();
    assertTrue(preview.stdout().contains("is in use: its deletion would wait, with no deadline, before anything of it"
        + " starts, until its user is gone or no longer names it (" + USES + "): " + user + " (alive)"), preview.stdout());

    Widgets.widget(client, ns.name(), "store").delete();
    try {
      Events.await(client, store, "WaitingForUsers");
      ProcessRunner.Result why = KubectlSyncgc.run("why", WIDGETS + "/store", "-n", ns.name()).assertOk();
      assertTrue(why.stdout().contains("syncgc: Synchronous: Waiting for 1 user before its own deletion starts ("
          + USES + "): " + user), "the words of the WaitingForUsers Event: " + why.stdout());
      assertTrue(why.stdout().contains("deadline: none while it is in use"), why.stdout());
      ProcessRunner.Result whyUser = KubectlSyncgc.run("why", "configmap/reader", "-n", ns.name()).assertOk();
      assertTrue(whyUser.stdout().contains("Uses (" + USES + "):\n  Widget/store  marked as deleted; held: it waits"
          + " for this to be gone (or no longer name it)"), whyUser.stdout());

      JsonNode status = JSON.readTree(KubectlSyncgc.run("status", "-n", ns.name(), "-o", "json").assertOk().stdout());
      assertEquals(1, status.path("inUseHolds").asInt(), status.toString());
      List<String> users = new ArrayList<>();
      status.path("deletions").forEach(d -> d.path("inUseBy").forEach(u -> users.add(d.path("name").asText() + " <- "
          + u.path("name").asText())));
      assertEquals(List.of("store <- reader"), users, status.toString());
      ProcessRunner.Result text = KubectlSyncgc.run("status", "-n", ns.name()).assertOk();
      assertTrue(text.stdout().contains("in-use holds in namespace " + ns.name() + ": 1 "), text.stdout());
      assertTrue(text.stdout().contains("  Widget/" + ns.name() + "/store  for "), text.stdout());
    } finally {
      client.resource(reader).delete();
    }
    await("store gone once its user is").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> Widgets.widget(client, ns.name(), "store").get() == null);
  }
}
