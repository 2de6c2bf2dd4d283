package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The plugin's kubectl-like options against the real API server and operator: KUBECONFIG's files,
 * --context, --as, -A, the KIND NAME form, --watch, and what a user who may not list every kind sees.
 */
@ExtendWith({SharedOperator.Extension.class, TestNamespace.Extension.class})
class KubectlSyncgcOptionsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOLD = "example.com/hold";
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void kubeconfigFilesAreMergedAContextNoFileHasIsAnErrorAndAsImpersonates(TestNamespace ns) throws Exception {
    Widgets.create(client, ns.name(), "w").apply();
    // a first file with another context and no current-context: the second file's current-context holds
    Path first = TestCluster.targetDir().resolve("first.kubeconfig");
    Files.writeString(first, "apiVersion: v1\nkind: Config\nclusters:\n- name: elsewhere\n  cluster: {server: "
        + "'https://127.0.0.1:1', insecure-skip-tls-verify: true}\nusers:\n- name: elsewhere\n  user: {token: t}\n"
        + "contexts:\n- name: elsewhere\n  context: {cluster: elsewhere, user: elsewhere}\n");
    String both = first + File.pathSeparator + TestCluster.get().kubeconfig();

    ProcessRunner.Result merged = KubectlSyncgc.runAs(both, "tree", "widgets.test.syncgc.dev", "w", "-n", ns.name());
    assertEquals(0, merged.exitCode(), merged.describe());
    assertTrue(merged.stdout().startsWith("Widget/w"), merged.describe());
    ProcessRunner.Result elsewhere = KubectlSyncgc.runAs(both, "tree", "widgets.test.syncgc.dev/w", "-n", ns.name(), "--context", "elsewhere");
    assertEquals(4, elsewhere.exitCode(), elsewhere.describe());
    assertTrue(elsewhere.stderr().contains("cannot reach the API server at https://127.0.0.1:1"), elsewhere.describe());
    ProcessRunner.Result noSuch = KubectlSyncgc.runAs(both, "tree", "widgets.test.syncgc.dev/w", "-n", ns.name(), "--context", "prod");
    assertEquals(4, noSuch.exitCode(), noSuch.describe());
    assertEquals("error: context \"prod\" not found in " + both + " (kubectl config get-contexts lists them)\n",
        noSuch.stderr(), noSuch.describe());

    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("nobody").endMetadata().build()).create();
    ProcessRunner.Result as = KubectlSyncgc.run("tree", "widgets.test.syncgc.dev/w", "-n", ns.name(),
        "--as", "system:serviceaccount:" + ns.name() + ":nobody");
    assertEquals(3, as.exitCode(), as.describe());
    assertTrue(as.stderr().contains("forbidden") && as.stderr().contains("system:serviceaccount:" + ns.name() + ":nobody"),
        as.describe());
  }

  @Test
  void statusShowsTheNamespaceOrWithAllNamespacesEveryOne(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "held").ownedBy(root).finalizer(HOLD).apply();
    Widgets.widget(client, ns.name(), "root").delete();
    try {
      await("root waiting for held").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
          .until(() -> Widgets.widget(client, ns.name(), "held").get().getMetadata().getDeletionTimestamp() != null);
      String uid = root.getMetadata().getUid();
      assertTrue(deletions("status", "-n", ns.name()).contains(uid));
      assertTrue(deletions("status", "-A").contains(uid));
      assertTrue(deletions("status", "--all-namespaces", "-n", "default").contains(uid));
      assertFalse(deletions("status", "-n", "default").contains(uid), "another namespace's deletion");
      ProcessRunner.Result text = KubectlSyncgc.run("status", "-n", ns.name()).assertOk();
      assertTrue(text.stdout().contains("deletions in progress in namespace " + ns.name() + ": 1 owner"), text.stdout());
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
    }
  }

  private static List<String> deletions(String... args) throws Exception {
    String[] json = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("-o", "json"))
        .toArray(String[]::new);
    JsonNode status = JSON.readTree(KubectlSyncgc.run(json).assertOk().stdout());
    List<String> uids = new java.util.ArrayList<>();
    status.path("deletions").forEach(d -> uids.add(d.path("uid").asText()));
    return uids;
  }

  @Test
  void whyWatchRedrawsUntilTheObjectIsGone(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "held").ownedBy(root).finalizer(HOLD).apply();
    Widgets.widget(client, ns.name(), "root").delete();
    await("held marked deleted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> Widgets.widget(client, ns.name(), "held").get().getMetadata().getDeletionTimestamp() != null);

    // the plugin as KubectlSyncgc runs it, its output read while it runs: the hold goes only once a look saw it
    Path out = TestCluster.targetDir().resolve("why-watch-" + ns.name() + ".out");
    ProcessBuilder builder = new ProcessBuilder(TestCluster.get().kubectl(), "syncgc", "why", "widgets.test.syncgc.dev",
        "root", "-n", ns.name(), "--watch", "--interval", "500ms").redirectOutput(out.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
    builder.environment().put("PATH", TestCluster.repoRoot().resolve("cli").resolve("bin") + File.pathSeparator
        + System.getenv("PATH"));
    Process watching = builder.start();
    try {
      await("a look that sees root wait for held").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> Files.readString(out).contains("Waiting for 1 dependent"));
      Thread.sleep(1_500); // a few more looks: the watch goes on while root is there
      assertTrue(watching.isAlive(), "the watch goes on while root is there: " + Files.readString(out));
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      assertTrue(watching.waitFor(60, TimeUnit.SECONDS), "the watch ends once root is gone: " + Files.readString(out));
    } finally {
      watching.destroyForcibly();
      GenericKubernetesResource held = Widgets.widget(client, ns.name(), "held").get();
      if (held != null && held.getMetadata().getFinalizers().contains(HOLD)) { // the namespace must be able to go
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
      }
    }
    String watched = Files.readString(out);

    assertEquals(0, watching.exitValue(), watched);
    assertTrue(watched.contains("is marked as deleted"), watched);
    assertTrue(watched.endsWith("widgets.test.syncgc.dev root is gone\n"), watched);
    assertFalse(watched.contains("\u001b["), "no screen control when piped: " + watched);
  }

  @Test
  void aUserWhoMayNotListAKindGetsOneLineAndItsObjectsKeepWhatTheyOwn(TestNamespace ns) throws Exception {
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Secret keeper = client.secrets().inNamespace(ns.name()).resource(new SecretBuilder().withNewMetadata()
        .withName("keeper").endMetadata().build()).create();
    client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata().withName("shared")
        .withOwnerReferences(Widgets.ownerReference(root), Widgets.ownerReference(keeper)).endMetadata().build()).create();
    client.serviceAccounts().inNamespace(ns.name()).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("lister").endMetadata().build()).create();
    client.rbac().roles().inNamespace(ns.name()).resource(new RoleBuilder().withNewMetadata().withName("lister")
        .endMetadata().withRules(new PolicyRuleBuilder().withApiGroups("", "test.syncgc.dev")
            .withResources("configmaps", "widgets").withVerbs("get", "list").build()).build()).create();
    client.rbac().roleBindings().inNamespace(ns.name()).resource(new RoleBindingBuilder().withNewMetadata()
        .withName("lister").endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "Role", "lister")
        .addNewSubject().withKind("ServiceAccount").withName("lister").withNamespace(ns.name()).endSubject().build())
        .create();
    String lister = ServiceAccounts.kubeconfig(client, ns.name(), "lister").toString();

    ProcessRunner.Result preview = KubectlSyncgc.runAs(lister, "preview", "widgets.test.syncgc.dev", "root", "-n", ns.name(), "-o", "json");

    assertEquals(0, preview.exitCode(), preview.describe());
    JsonNode p = JSON.readTree(preview.stdout());
    List<String> deleted = new java.util.ArrayList<>();
    p.path("delete").forEach(d -> deleted.add(d.path("kind").asText() + "/" + d.path("name").asText()));
    assertEquals(List.of("Widget/root"), deleted, "the Secret it may not list keeps 'shared': " + preview.describe());
    assertTrue(p.path("notChecked").toString().contains("\"secrets (forbidden)\""), preview.describe());
    ProcessRunner.Result text = KubectlSyncgc.runAs(lister, "preview", "widgets.test.syncgc.dev", "root", "-n", ns.name());
    assertEquals(0, text.exitCode(), text.describe());
    List<String> warnings = text.stderr().lines().toList();
    assertEquals(2, warnings.size(), "one line however many kinds, one for the policies: " + text.describe());
    assertTrue(warnings.get(0).startsWith("warning: could not list ") && warnings.get(0).contains("secrets")
        && warnings.get(0).contains("forbidden, cluster-scoped: "), text.describe());
    // the policies it may not read are said, not dropped without a word
    assertTrue(warnings.get(1).startsWith("warning: GarbageCollectionPolicies could not be listed (forbidden)"),
        text.describe());
  }

  @Test
  void kubectlCompletesThroughKubectlCompleteSyncgc(TestNamespace ns) throws Exception {
    Widgets.create(client, ns.name(), "root").apply();
    Widgets.create(client, ns.name(), "other").apply();

    // what bash and zsh ask kubectl for on "kubectl syncgc tree -n NS widget/<TAB>"
    ProcessRunner.Result names = complete("tree", "-n", ns.name(), "widgets.test.syncgc.dev/");
    assertEquals(List.of("widgets.test.syncgc.dev/other", "widgets.test.syncgc.dev/root", ":4"),
        names.stdout().lines().toList(), names.describe());
    ProcessRunner.Result commands = complete("s");
    assertEquals(List.of("status", ":4"), commands.stdout().lines().toList(), commands.describe());
    ProcessRunner.Result kinds = complete("preview", "widg");
    assertTrue(kinds.stdout().lines().toList().contains("widgets"), kinds.describe());
  }

  /** {@code kubectl __complete syncgc words...}: kubectl's own completion entry, which runs kubectl_complete-syncgc. */
  private static ProcessRunner.Result complete(String... words) {
    List<String> command = new java.util.ArrayList<>(List.of(TestCluster.get().kubectl(), "__complete", "syncgc"));
    command.addAll(List.of(words));
    return ProcessRunner.run(command, java.util.Map.of("KUBECONFIG", TestCluster.get().kubeconfig().toString(),
        "PATH", TestCluster.repoRoot().resolve("cli").resolve("bin") + File.pathSeparator + System.getenv("PATH")),
        Duration.ofSeconds(60));
  }
}
