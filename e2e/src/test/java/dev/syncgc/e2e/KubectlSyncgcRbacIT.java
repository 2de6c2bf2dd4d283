package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart's RBAC for people against the real API server: {@code kubectl syncgc status}, {@code tree}
 * and {@code why} run as a user who has nothing but the chart's plugin role (rendered with
 * {@code helm template}, applied as rendered), and fail with a clear message without it; the policy
 * roles fold into the built-in view and edit roles.
 */
@ExtendWith({SharedOperator.Extension.class, TestNamespace.Extension.class})
class KubectlSyncgcRbacIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOLD = "example.com/hold";
  private static final String WIDGET = "widgets.test.syncgc.dev/";

  private final KubernetesClient client = TestCluster.get().client();
  private final String suffix = UUID.randomUUID().toString().substring(0, 8);
  private final String fullname = "rbac-it-" + suffix;
  private final String user = "plugin-user-" + suffix;
  private final List<HasMetadata> created = new ArrayList<>();

  @AfterEach
  void removeWhatWasApplied() {
    for (HasMetadata o : created) {
      client.resource(o).delete();
    }
  }

  /** The chart's objects with these values, under this test's own full name. */
  private Helm.Rendered render(String... sets) {
    List<String> args = new ArrayList<>(List.of("--set", "fullnameOverride=" + fullname));
    args.addAll(List.of(sets));
    return Helm.forChart().render(args.toArray(String[]::new));
  }

  private <T extends HasMetadata> T named(Helm.Rendered r, Class<T> type, String name) {
    return r.all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).findFirst()
        .orElseThrow(() -> new AssertionError(type.getSimpleName() + " " + name + " not rendered: " + r.kinds()));
  }

  /** Applies a rendered object as it is (namespaced ones into {@code namespace}), and removes it after the test. */
  private void apply(HasMetadata o, String namespace) {
    if (namespace != null) {
      o.getMetadata().setNamespace(namespace);
    }
    created.add(client.resource(o).serverSideApply());
  }

  /** {@code kubectl syncgc args...} as the test's user, impersonated as kubectl's --as does it. */
  private ProcessRunner.Result asUser(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--as", user, "--as-group", "system:authenticated"));
    return KubectlSyncgc.run(all.toArray(String[]::new));
  }

  @Test
  void pluginWorksForAUserWithOnlyThePluginRoleAndSaysForbiddenWithoutIt(TestNamespace ns) throws Exception {
    String ownerName = "owner-" + suffix;
    GenericKubernetesResource root = Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "child").ownedBy(root).apply();
    Widgets.create(client, ns.name(), "held").ownedBy(root).finalizer(HOLD).apply();
    client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder().withNewMetadata().withName(ownerName)
        .withOwnerReferences(Widgets.ownerReference(root)).endMetadata().build()).create();

    // Without any binding: the commands that read one object stop, forbidden, naming what to ask for.
    ProcessRunner.Result treeDenied = asUser("tree", WIDGET + "root", "-n", ns.name());
    assertEquals(3, treeDenied.exitCode(), treeDenied.describe());
    assertTrue(treeDenied.stderr().contains("list widgets named root in namespace " + ns.name() + ": forbidden"),
        treeDenied.describe());
    assertTrue(treeDenied.stderr().contains("ask for get/list rights"), treeDenied.describe());
    ProcessRunner.Result whyDenied = asUser("why", WIDGET + "root", "-n", ns.name());
    assertEquals(3, whyDenied.exitCode(), whyDenied.describe());
    assertTrue(whyDenied.stderr().contains("forbidden"), whyDenied.describe());
    // status reads what it can and names the rest, never a silent empty answer
    ProcessRunner.Result statusDenied = asUser("status", "-A");
    assertTrue(statusDenied.output().contains("no right to list Pods"), statusDenied.describe());
    assertTrue(statusDenied.output().contains("forbidden"), statusDenied.describe());

    // The chart's plugin roles, bound to the user by the chart's own bindings (rbac.pluginRole.subjects).
    Helm.Rendered r = render("--set-json", "rbac.pluginRole.subjects=[{\"kind\":\"User\",\"apiGroup\":"
        + "\"rbac.authorization.k8s.io\",\"name\":\"" + user + "\"}]");
    ClusterRole pluginRole = named(r, ClusterRole.class, fullname + "-plugin");
    for (PolicyRule rule : pluginRole.getRules()) {
      assertFalse(rule.getVerbs().contains("get") && rule.getResources().contains("*"), "get on * " + rule);
    }
    apply(pluginRole, null);
    apply(named(r, ClusterRoleBinding.class, fullname + "-plugin"), null);
    // the metrics Role goes where the operator's Pods would be: here, the test's namespace
    apply(named(r, Role.class, fullname + "-plugin"), ns.name());
    apply(named(r, RoleBinding.class, fullname + "-plugin"), ns.name());

    ProcessRunner.Result tree = await("the API server's RBAC sees the binding").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> asUser("tree", WIDGET + "root", "-n", ns.name()), ProcessRunner.Result::ok);
    assertTrue(tree.stdout().startsWith("Widget/root  alive"), tree.stdout());
    for (String shown : List.of("Widget/child", "Widget/held", "ConfigMap/" + ownerName)) {
      assertTrue(tree.stdout().contains(shown), shown + " in " + tree.stdout());
    }
    assertFalse(tree.output().contains("forbidden") || tree.output().contains("could not list"), tree.output());

    ProcessRunner.Result why = asUser("why", WIDGET + "root", "-n", ns.name()).assertOk();
    assertTrue(why.stdout().contains("opted in: Synchronous, by its annotation syncgc.dev/propagation"), why.stdout());
    assertFalse(why.output().contains("forbidden"), why.output());

    Widgets.widget(client, ns.name(), "root").delete();
    ObjectAwaits.awaitWidgetMarkedDeleted(client, ns.name(), "held"); // the root waits for it
    try {
      ProcessRunner.Result waiting = asUser("why", WIDGET + "root", "-n", ns.name()).assertOk();
      assertTrue(waiting.stdout().contains("Waiting for 1 dependent: Widget/" + ns.name() + "/held"), waiting.stdout());
      assertFalse(waiting.output().contains("forbidden"), waiting.output());

      ProcessRunner.Result statusText = asUser("status", "-A").assertOk();
      assertFalse(statusText.output().contains("forbidden") || statusText.output().contains("no right"),
          statusText.output());
      JsonNode status = JSON.readTree(asUser("status", "-A", "-o", "json").assertOk().stdout());
      assertEquals(0, status.path("notChecked").size(), "every kind listed: " + status.path("notChecked"));
      JsonNode ours = KubectlSyncgc.deletionOf(status, root.getMetadata().getUid());
      assertEquals(1, ours.path("dependentsLeft").asInt(), ours.toString());
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "held"), HOLD);
    }
  }

  @Test
  void policyRolesFoldIntoTheBuiltInViewEditAndAdminRoles() {
    Helm.Rendered r = render();
    ClusterRole view = named(r, ClusterRole.class, fullname + "-view");
    ClusterRole edit = named(r, ClusterRole.class, fullname + "-edit");
    // The API server's own view/edit/admin select their parts by label: the rendered labels must match
    // those selectors (checked against the roles the API server bootstrapped, not a copy of their labels).
    assertEquals(List.of("admin", "edit", "view"), aggregatedInto(view));
    assertEquals(List.of("admin", "edit"), aggregatedInto(edit), "view must not write policies");
    apply(view, null);
    apply(edit, null);
    if (client.rbac().clusterRoles().withName("view").get().getRules() == null) {
      // kube-controller-manager's clusterrole-aggregation controller is not among this cluster's
      // controllers (e2e/cluster.sh, SYNCGC_KCM_CONTROLLERS): the selectors above are what it would use.
      return;
    }
    await("view aggregates the policy role").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
        .until(() -> verbsOnPolicies("view").containsAll(List.of("get", "list", "watch")));
    assertFalse(verbsOnPolicies("view").contains("create"), "view must not write policies");
    await("edit and admin aggregate both").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
        .until(() -> verbsOnPolicies("edit").containsAll(List.of("get", "list", "create", "update", "patch", "delete"))
            && verbsOnPolicies("admin").containsAll(List.of("get", "list", "create", "delete")));
  }

  /** The built-in roles (view, edit, admin) whose aggregationRule selects this role's labels. */
  private List<String> aggregatedInto(ClusterRole role) {
    List<String> into = new ArrayList<>();
    for (String builtIn : List.of("admin", "edit", "view")) {
      ClusterRole b = client.rbac().clusterRoles().withName(builtIn).get();
      boolean selected = b.getAggregationRule().getClusterRoleSelectors().stream().anyMatch(sel ->
          sel.getMatchLabels().entrySet().stream().allMatch(e ->
              e.getValue().equals(role.getMetadata().getLabels().get(e.getKey()))));
      if (selected) {
        into.add(builtIn);
      }
    }
    return into;
  }

  private List<String> verbsOnPolicies(String builtInRole) {
    ClusterRole role = client.rbac().clusterRoles().withName(builtInRole).get();
    List<String> verbs = new ArrayList<>();
    for (PolicyRule rule : role.getRules() == null ? List.<PolicyRule>of() : role.getRules()) {
      if (rule.getApiGroups().contains("syncgc.dev") && rule.getResources().contains("garbagecollectionpolicies")) {
        verbs.addAll(rule.getVerbs());
      }
    }
    return verbs;
  }
}
