package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorCommand;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart installed for real with {@code helm install}, tracking Widgets (not ClusterWidgets) and
 * ConfigMaps only. Nothing runs the chart's Pods here (no kubelet, no scheduler), so the operator
 * jar runs as a process with a kubeconfig for the chart's ServiceAccount, i.e. with exactly the
 * rights the chart grants, and with the flags of the chart's Deployment. The shared operator is
 * paused meanwhile. The last test uninstalls the release.
 */
@ExtendWith(TestNamespace.Extension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmInstallIT {
  private static final String HOLD = "example.com/hold";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration HELM_DEADLINE = Duration.ofSeconds(180);
  private static final Duration RELEASE_DEADLINE = Duration.ofSeconds(180);
  private static final String REFUSED = "no permission to list and watch kind=ClusterWidget";

  private static final KubernetesClient client = TestCluster.get().client();
  private static String release;
  private static String releaseNamespace;
  private static String fullname;
  private static Path saKubeconfig;
  private static OperatorProcess operator;
  private static AssertionError notReady;
  private static boolean installed;
  /** helm's cache, config and data directories. */
  @TempDir
  static Path helmHome;

  @BeforeAll
  static void installChartAndRunOperatorAsItsServiceAccount() throws Exception {
    SharedOperator.pause();
    TestCrds.install(client); // Widget and ClusterWidget exist before the operator starts
    release = "e2e-" + Namespaces.randomSuffix(6);
    fullname = release + "-syncgc";
    releaseNamespace = Namespaces.create(client, "HelmInstallIT release " + release);

    ProcessRunner.Result install = helm("install", release,
        TestCluster.repoRoot().resolve("helm/syncgc").toString(), "--namespace", releaseNamespace,
        // the chart names no image; the Deployment's Pods never run here (the operator runs as a process)
        "--set", "image.repository=" + Helm.IMAGE_REPOSITORY,
        // the suite applied the CRD (crds/) without Helm: this release must not claim it
        "--set", "crds.enabled=false",
        "--set", "uninstall.releaseFinalizers=false", "--set", "trackedKinds.everyServedKind=false",
        "--set-json", "trackedKinds.customResources=[{\"apiGroups\":[\"" + TestCrds.GROUP
            + "\"],\"resources\":[\"widgets\"]}]",
        "--set-json", "trackedKinds.builtin=[{\"group\":\"\",\"kind\":\"ConfigMap\",\"resource\":\"configmaps\"}]");
    assertTrue(install.ok(), "helm install: " + install.describe());
    installed = true;

    await("ServiceAccount " + fullname).atMost(DEADLINE)
        .until(() -> client.serviceAccounts().inNamespace(releaseNamespace).withName(fullname).get() != null);
    saKubeconfig = ServiceAccounts.kubeconfig(client, releaseNamespace, fullname);

    // readiness is awaited by each test, so that a failure to get ready is reported by each
    operator = OperatorProcess.start("helm-install-" + release, chartOperatorArgs(),
        Map.of("KUBECONFIG", saKubeconfig.toString()));
  }

  @AfterAll
  static void uninstallAndResume() {
    try {
      if (operator != null) {
        operator.close();
      }
      if (installed) {
        helm("uninstall", release, "--namespace", releaseNamespace, "--wait");
      }
      if (releaseNamespace != null) {
        Namespaces.deleteAsync(client, releaseNamespace);
      }
    } finally {
      SharedOperator.resume();
    }
  }

  @Test
  @Order(1)
  void synchronousDeletionOfWidgetOwnerWithWidgetAndConfigMapDependentsWorksWithTheChartsRights(TestNamespace ns) {
    readyOperator();
    GenericKubernetesResource owner =
        Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "widget-dependent").ownedBy(owner).apply();
    client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
        .withNewMetadata().withName("configmap-dependent").withOwnerReferences(Widgets.ownerReference(owner))
        .endMetadata().addToData("k", "v").build()).create();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      Widgets.widget(client, ns.name(), "owner").delete();

      order.awaitDeleted(DEADLINE, "owner", "widget-dependent", "configmap-dependent");
      order.checkWatches();
      order.assertBefore("widget-dependent", "owner");
      order.assertBefore("configmap-dependent", "owner");
    }
    Events.await(client, owner, "SynchronousDeletionCompleted");
  }

  @Test
  @Order(2)
  void clusterWidgetsAreRefusedByRbacVisiblyAndTheOperatorStaysAliveAndReady() {
    try {
      operator.awaitLog(REFUSED);
    } catch (RuntimeException e) {
      throw new AssertionError("'" + REFUSED + "' not in " + operator.logFile() + "; its lines on ClusterWidget:\n"
          + operator.log().lines().filter(l -> l.contains("ClusterWidget") && l.contains("level="))
              .limit(5).collect(java.util.stream.Collectors.joining("\n")), e);
    }
    readyOperator();

    // refused, so left alone: an annotated ClusterWidget gets no finalizer
    String name = "e2e-helm-" + Namespaces.randomSuffix(8);
    Widgets.createCluster(client, name).synchronous().apply();
    try {
      await("ClusterWidget " + name + " stays without the syncgc finalizer").during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
          .until(() -> !ObjectAwaits.hasFinalizer(Widgets.clusterWidget(client, name).get(), FINALIZER));
    } finally {
      Widgets.clusterWidget(client, name).delete();
    }
    assertTrue(operator.isAlive(), "the operator is still running; log tail:\n" + operator.log());
    assertEquals(200, operator.get("/healthz").statusCode(), "/healthz");
    assertEquals(200, operator.get("/readyz").statusCode(), "/readyz");
  }

  /**
   * The chart's {@code helm test} Pod, run as it would run in the cluster: its command (the operator
   * jar here instead of the image's copy), its environment and its own ServiceAccount's rights. It
   * passes against the operator running with the chart's rights, and leaves nothing behind.
   */
  @Test
  @Order(3)
  void helmTestsCascadeCheckPassesAsItsServiceAccountAndCleansUp() throws Exception {
    readyOperator();
    ProcessRunner.Result hooks = helm("get", "hooks", release, "--namespace", releaseNamespace);
    assertTrue(hooks.ok(), hooks.describe());
    Pod pod = null;
    for (String doc : hooks.stdout().split("(?m)^---\\s*$")) {
      if (doc.contains("kind: Pod") && doc.contains("helm.sh/hook: test")) {
        pod = new KubernetesSerialization().unmarshal(doc, Pod.class);
      }
    }
    assertNotNull(pod, "a test hook Pod in: " + hooks.stdout());
    Container c = pod.getSpec().getContainers().get(0);
    List<String> command = new ArrayList<>(c.getCommand());
    command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.set(command.indexOf("/app/syncgc-operator.jar"),
        TestCluster.repoRoot().resolve("operator/target/syncgc-operator.jar").toString());
    Map<String, String> env = new HashMap<>();
    c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    assertEquals(releaseNamespace, env.get("SYNCGC_TEST_NAMESPACE"));
    env.put("KUBECONFIG", ServiceAccounts.kubeconfig(client, releaseNamespace, pod.getSpec().getServiceAccountName())
        .toString());

    ProcessRunner.Result test = ProcessRunner.run(command, env, Duration.ofSeconds(150));
    assertEquals(0, test.exitCode(), test.describe());
    assertTrue(test.stdout().contains("ok: " + env.get("SYNCGC_TEST_NAME")) && test.stdout().contains("PASS"),
        test.describe());
    assertEquals(List.of(), client.configMaps().inNamespace(releaseNamespace)
        .withLabel("app.kubernetes.io/name", "syncgc-test").list().getItems().stream()
        .map(cm -> cm.getMetadata().getName()).toList(), "the test's ConfigMaps are gone");
  }

  @Test
  @Order(4)
  void releaseCommandFreesAndHandsOverWidgetsThenHelmUninstallLeavesNothingBehind(TestNamespace ns) {
    BuiltInCollector.assumeRunning("the release command hands an owner under deletion over to foreground"
        + " deletion, whose foregroundDeletion finalizer only the collector removes");
    readyOperator();
    String held = "held-dependent";
    try {
      Widgets.create(client, ns.name(), "alive").synchronous().applyAndAwaitFinalizer();
      GenericKubernetesResource owner =
          Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
      // blockOwnerDeletion, as controllers set it: Kubernetes' foreground deletion waits for it
      Widgets.create(client, ns.name(), held).ownedBy(owner, true, false).finalizer(HOLD).apply();
      Widgets.widget(client, ns.name(), "owner").delete();
      await("the cascade reached the held dependent").atMost(DEADLINE).until(() -> {
        GenericKubernetesResource d = Widgets.widget(client, ns.name(), held).get();
        return d != null && d.getMetadata().getDeletionTimestamp() != null;
      });
      GenericKubernetesResource stuck = Widgets.widget(client, ns.name(), "owner").get();
      assertTrue(stuck != null && ObjectAwaits.hasFinalizer(stuck, FINALIZER),
          "the owner is held by syncgc's finalizer: " + (stuck == null ? "gone" : stuck.getMetadata()));

      // uninstall, by hand as the chart README says with uninstall.releaseFinalizers=false: the release
      // looks at every kind, which the chart's narrowed rights (Widgets and ConfigMaps) may not list
      // (ReleaseIT: it then fails naming them), so its identity is given the rights the README asks for
      operator.stop();
      client.apps().deployments().inNamespace(releaseNamespace).withName(fullname).scale(0);
      OperatorCommand.Completed released;
      try {
        grantReleaseRights();
        released = OperatorCommand.run("helm-install-" + release + "-release", List.of("release"),
            Map.of("KUBECONFIG", saKubeconfig.toString(), "SYNCGC_BUILTIN_KINDS", "ConfigMap"), RELEASE_DEADLINE);
      } finally {
        client.rbac().clusterRoleBindings().withName(fullname + "-manual-release").delete();
        client.rbac().clusterRoles().withName(fullname + "-manual-release").delete();
      }
      assertEquals(0, released.exitCode(), "release exit code; output:\n" + released.output());
      assertTrue(released.output().contains("released object=Widget/" + ns.name() + "/alive "),
          released.output());
      assertTrue(released.output().contains("handed over to foreground deletion object=Widget/" + ns.name()
          + "/owner "), released.output());

      GenericKubernetesResource alive = Widgets.widget(client, ns.name(), "alive").get();
      assertNotNull(alive, "the alive Widget still exists");
      assertNull(alive.getMetadata().getDeletionTimestamp(), "the alive Widget is not being deleted");
      assertFalse(ObjectAwaits.hasFinalizer(alive, FINALIZER), "alive lost the syncgc finalizer: "
          + alive.getMetadata().getFinalizers());
      GenericKubernetesResource handedOver = Widgets.widget(client, ns.name(), "owner").get();
      assertNotNull(handedOver, "the owner waits for its dependent");
      assertFalse(ObjectAwaits.hasFinalizer(handedOver, FINALIZER),
          "the owner lost the syncgc finalizer: " + handedOver.getMetadata().getFinalizers());
      assertTrue(ObjectAwaits.hasFinalizer(handedOver, "foregroundDeletion"),
          "the owner is handed over to foreground deletion: " + handedOver.getMetadata().getFinalizers());

      try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), held), HOLD);

        order.awaitDeleted(DEADLINE, held, "owner");
        order.checkWatches();
        order.assertBefore(held, "owner");
      }

      ProcessRunner.Result uninstall =
          helm("uninstall", release, "--namespace", releaseNamespace, "--wait");
      assertTrue(uninstall.ok(), "helm uninstall: " + uninstall.describe());
      installed = false;
      await("nothing of release " + release + " left").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
          .untilAsserted(() -> assertEquals(List.of(), leftovers()));
      ProcessRunner.Result list = helm("list", "--all", "--short", "--namespace", releaseNamespace);
      assertTrue(list.ok() && list.stdout().isBlank(), "helm list: " + list.describe());
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), held), HOLD);
    }
  }

  // --- helpers

  /** What the README asks of the identity that runs the release by hand: list, patch and delete everything. */
  private static void grantReleaseRights() {
    String name = fullname + "-manual-release";
    client.rbac().clusterRoles().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .addNewRule().withApiGroups("*").withResources("*").withVerbs("get", "list", "patch", "delete").endRule()
        .build()).create();
    client.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
        .addNewSubject().withKind("ServiceAccount").withName(fullname).withNamespace(releaseNamespace).endSubject()
        .build()).create();
  }

  /** The operator running as the chart's ServiceAccount, ready; fails at once if it never got ready. */
  private static OperatorProcess readyOperator() {
    if (notReady != null) {
      throw new AssertionError("the operator did not get ready (see the first failure)", notReady);
    }
    try {
      return operator.awaitReady();
    } catch (AssertionError e) {
      notReady = e;
      throw e;
    }
  }

  /** What is left of the release: its objects (by the chart's instance label) and helm's own records. */
  private static List<String> leftovers() {
    Map<String, String> instance = Map.of("app.kubernetes.io/instance", release);
    List<HasMetadata> left = new ArrayList<>();
    left.addAll(client.apps().deployments().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.apps().replicaSets().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.pods().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.services().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.serviceAccounts().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.rbac().roles().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.rbac().roleBindings().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.batch().v1().jobs().inNamespace(releaseNamespace).withLabels(instance).list().getItems());
    left.addAll(client.rbac().clusterRoles().withLabels(instance).list().getItems());
    left.addAll(client.rbac().clusterRoleBindings().withLabels(instance).list().getItems());
    left.addAll(client.secrets().inNamespace(releaseNamespace)
        .withLabels(Map.of("owner", "helm", "name", release)).list().getItems());
    List<String> names = new ArrayList<>(left.stream()
        .map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList());
    if (client.serviceAccounts().inNamespace(releaseNamespace).withName(fullname).get() != null) {
      names.add("ServiceAccount/" + fullname);
    }
    if (client.rbac().clusterRoles().withName(fullname).get() != null) {
      names.add("ClusterRole/" + fullname);
    }
    if (client.rbac().clusterRoleBindings().withName(fullname).get() != null) {
      names.add("ClusterRoleBinding/" + fullname);
    }
    return names.stream().distinct().toList();
  }

  /** The flags of the chart's Deployment, except its HTTP port (each test operator has its own). */
  private static List<String> chartOperatorArgs() {
    Deployment deployment = client.apps().deployments().inNamespace(releaseNamespace).withName(fullname).get();
    assertNotNull(deployment, "Deployment " + fullname + " installed by the chart");
    List<String> args = new ArrayList<>(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs());
    args.removeIf(a -> a.startsWith("--http-port"));
    assertTrue(args.contains("--builtin-kinds=ConfigMap"), "the chart's flags: " + args);
    return args;
  }

  /** The real helm against the test cluster. */
  private static ProcessRunner.Result helm(String... args) {
    return ProcessRunner.helm(helmHome, HELM_DEADLINE, args);
  }
}
