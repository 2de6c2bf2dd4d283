package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kubectl syncgc delete} and {@code kubectl syncgc release}, run as a user runs them against the
 * real API server and the running operator: the exit code scripts rely on, and what is printed.
 */
@ExtendWith({SharedOperator.Extension.class, TestNamespace.Extension.class})
class KubectlSyncgcDeleteIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOLD = "example.com/hold";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void deleteWatchesASmallTreeGoWithItsBlockersAndExitsZeroWhenAllWent(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource a = Widgets.create(client, ns.name(), "a").ownedBy(root).apply();
    Widgets.create(client, ns.name(), "b").ownedBy(root).apply();
    Widgets.create(client, ns.name(), "c").ownedBy(a).apply();
    Widgets.create(client, ns.name(), "held").ownedBy(root).finalizer(HOLD).apply();
    // held for a few seconds once syncgc deleted it, so that the plugin sees a deletion under way
    CompletableFuture<Void> unhold = CompletableFuture.runAsync(() -> {
      await("held marked deleted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
        GenericKubernetesResource h = Widgets.widget(client, ns.name(), "held").get();
        return h != null && h.getMetadata().getDeletionTimestamp() != null;
      });
      try {
        Thread.sleep(7_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
    });
    try {
      ProcessRunner.Result r = KubectlSyncgc.run("delete", "widgets.test.syncgc.dev", "root", "-n", ns.name()); // kubectl's KIND NAME

      assertEquals(0, r.exitCode(), r.describe());
      List<String> lines = r.stdout().lines().toList();
      String owner = "Widget/" + ns.name() + "/root";
      assertEquals(owner + " deleted (cascade background)", lines.get(0), r.describe());
      assertTrue(lines.stream().anyMatch(l -> l.startsWith(owner + ": 1 of 4 dependents left")
          && l.contains("Waiting for 1 dependent: Widget/" + ns.name() + "/held (held by finalizers [" + HOLD + "])")),
          "a progress line with the blocker in the words of the WaitingForDependents Event: " + r.describe());
      assertEquals(owner + " deleted, with its 4 dependents", lines.get(lines.size() - 1), r.describe());
      assertFalse(r.stdout().contains("\r"), "no terminal redraw into a pipe: " + r.describe());
      for (String name : List.of("root", "a", "b", "c", "held")) {
        assertNull(Widgets.widget(client, ns.name(), name).get(), name + " gone when delete exits 0");
      }
    } finally {
      unhold.get();
    }
  }

  @Test
  void aDeletionTheDeadlineReleasedWithDependentsLeftExitsWithTheTimedOutCode(TestNamespace ns) throws Exception {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(TIMEOUT, "3s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    Widgets.create(client, ns.name(), "blocker").ownedBy(owner).finalizer(HOLD).apply();
    try {
      ProcessRunner.Result r = KubectlSyncgc.run("delete", "widgets.test.syncgc.dev/owner", "-n", ns.name(), "-o", "json");

      assertEquals(6, r.exitCode(), "the timed-out exit code: " + r.describe());
      List<String> lines = r.stdout().lines().toList();
      assertEquals("sent", JSON.readTree(lines.get(0)).path("event").asText(), r.describe());
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"event\":\"progress\"")), r.describe());
      JsonNode end = JSON.readTree(lines.get(lines.size() - 1));
      assertEquals("timedOut", end.path("event").asText(), r.describe());
      assertEquals(1, end.path("left").asInt(), r.describe());
      assertTrue(end.path("message").asText().contains("Widget/" + ns.name() + "/blocker"),
          "the SynchronousDeletionTimedOut Event's words: " + r.describe());
      assertNull(Widgets.widget(client, ns.name(), "owner").get(), "the owner is gone");
      assertNotNull(Widgets.widget(client, ns.name(), "blocker").get(), "its held dependent is left");
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), HOLD);
    }
  }

  @Test
  void releaseRemovesTheFinalizerOnlyOnceConfirmed(TestNamespace ns) {
    SharedOperator.pause(); // as the uninstall: nothing puts the finalizer back
    try {
      Widgets.create(client, ns.name(), "kept").finalizer(FINALIZER).apply();

      ProcessRunner.Result unconfirmed = KubectlSyncgc.run("release");
      assertEquals(1, unconfirmed.exitCode(), "no terminal and no --yes: " + unconfirmed.describe());
      assertTrue(Widgets.widget(client, ns.name(), "kept").get().getMetadata().getFinalizers().contains(FINALIZER),
          "nothing released unconfirmed");

      ProcessRunner.Result r = KubectlSyncgc.run("release", "--yes");

      assertEquals(0, r.exitCode(), r.describe());
      assertTrue(r.stdout().lines().anyMatch(l -> l.startsWith("released object=") && l.contains("kept")),
          "names what it released: " + r.describe());
      assertTrue(r.stdout().lines().anyMatch(l -> l.matches("released [1-9][0-9]* objects?, handed over \\d+ being deleted")),
          r.describe());
      assertFalse(Widgets.widget(client, ns.name(), "kept").get().getMetadata().getFinalizers().contains(FINALIZER),
          "the finalizer is gone: " + r.describe());
    } finally {
      SharedOperator.resume();
    }
  }

  @Test
  void treeWhyAndPreviewTakeKindNameAsKubectlDoes(TestNamespace ns) {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "leaf").ownedBy(root).apply();
    for (String command : List.of("tree", "why", "preview")) {
      ProcessRunner.Result words = KubectlSyncgc.run(command, "widgets.test.syncgc.dev", "root", "-n", ns.name(), "-o", "json");
      assertEquals(0, words.exitCode(), words.describe());
      assertTrue(words.stdout().contains(root.getMetadata().getUid()), command + " about root: " + words.describe());
    }
    assertTrue(KubectlSyncgc.run("tree", "widgets.test.syncgc.dev", "root", "-n", ns.name()).assertOk().stdout().contains("Widget/leaf"));
    ProcessRunner.Result mixed = KubectlSyncgc.run("tree", "widgets.test.syncgc.dev/root", "leaf", "-n", ns.name());
    assertEquals(1, mixed.exitCode(), mixed.describe());
  }
}
