package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Helm;
import dev.syncgc.e2e.support.Helm.Rendered;
import dev.syncgc.e2e.support.ProcessRunner;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart {@code helm/syncgc}, rendered with {@code helm template} (no cluster): what needs
 * more than helm-unittest's assertions on one rendered object (helm/syncgc/tests, make chart-test):
 * the operator's RBAC as a whole, objects compared with each other (the release Job and the helm test
 * Pod against the Deployment, Services and selectors against Pod labels), the CRD against crds/,
 * Chart.yaml's Artifact Hub annotations against the CRD and the operator's policy classes, helm lint.
 */
class HelmChartIT {
  private static final String FULLNAME = Helm.RELEASE + "-syncgc";
  private static final Set<String> TRACKED_VERBS = Set.of("get", "list", "watch", "patch", "delete");

  private static Helm helm;

  @BeforeAll
  static void findHelm() {
    helm = Helm.forChart();
  }

  // --- lint and overall shape

  @ParameterizedTest(name = "helm lint --strict {0}")
  @ValueSource(strings = {
      "",
      "--set replicaCount=3 --set metrics.serviceMonitor.enabled=true --set namespaces={a,b}",
      "--set uninstall.releaseFinalizers=false --set metrics.service.enabled=false --set leaderElection.enabled=true",
      "--set serviceAccount.create=false --set serviceAccount.name=existing --set image.tag=dev",
  })
  void chartPassesStrictLint(String args) {
    ProcessRunner.Result result = helm.lint(args.isEmpty() ? new String[0] : args.split(" "));
    assertTrue(result.ok(), result.describe());
    assertTrue(result.stdout().contains("0 chart(s) failed"), result.describe());
    assertFalse(result.stdout().contains("[WARNING]") || result.stdout().contains("[ERROR]"), result.describe());
  }

  /**
   * {@code helm template} without a cluster assumes Kubernetes v1.20.0, which the chart's
   * {@code kubeVersion} refuses before any template renders: docs/usage.md and Chart.yaml tell users
   * to pass {@code --kube-version}, which every render in this class does ({@link Helm#template}).
   */
  @Test
  void renderingWithoutAClusterNeedsKubeVersionAndTheRefusalNamesTheConstraint() {
    ProcessRunner.Result without = helm.templateWithoutKubeVersion();
    assertFalse(without.ok(), without.describe());
    assertTrue(without.stderr().contains("kubeVersion: >=1.29.0-0")
        && without.stderr().contains("v1.20.0"), without.describe());

    ProcessRunner.Result with = helm.template("");
    assertTrue(with.ok(), with.describe());
    assertTrue(String.join(" ", with.command()).contains("--kube-version " + Helm.KUBE_VERSION), with.describe());
  }

  /**
   * The chart names no image (the project publishes none: a default would end in ImagePullBackOff):
   * without image.repository it refuses to render, saying how to build one and what to set.
   */
  @Test
  void renderingWithoutAnImageFailsNamingMakeDistImageAndTheValues() {
    ProcessRunner.Result without = helm.templateWithoutImage();
    assertFalse(without.ok(), without.describe());
    for (String named : List.of("image.repository", "make dist-image", "image.tag", "image.digest")) {
      assertTrue(without.stderr().contains(named), named + " unnamed: " + without.describe());
    }
    ProcessRunner.Result with = helm.templateWithoutImage("--set", "image.repository=" + Helm.IMAGE_REPOSITORY);
    assertTrue(with.ok(), with.describe());
  }

  /** The chart ships the project's license: a copy of the root LICENSE, named in Chart.yaml. */
  @Test
  void chartCarriesTheProjectsLicense() throws java.io.IOException {
    java.nio.file.Path root = dev.syncgc.e2e.support.TestCluster.repoRoot();
    String license = java.nio.file.Files.readString(root.resolve("LICENSE"));
    assertTrue(license.contains("Apache License") && license.contains("Version 2.0, January 2004")
        && license.contains("END OF TERMS AND CONDITIONS"), "the full Apache-2.0 text");
    assertEquals(license, java.nio.file.Files.readString(helm.chart().resolve("LICENSE")),
        "helm/syncgc/LICENSE differs from LICENSE: cp LICENSE helm/syncgc/LICENSE");
    assertTrue(java.nio.file.Files.readString(helm.chart().resolve("Chart.yaml"))
        .contains("artifacthub.io/license: Apache-2.0"));
  }

  /** What Artifact Hub and `helm show chart` tell a user about where the chart comes from. */
  @Test
  @SuppressWarnings("unchecked")
  void chartMetadataSaysWhereItComesFromAndWhoMaintainsIt() throws java.io.IOException {
    Map<String, Object> chart = new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
        .unmarshal(java.nio.file.Files.readString(helm.chart().resolve("Chart.yaml")), Map.class);
    assertTrue(((String) chart.get("home")).startsWith("https://"), chart.toString());
    assertFalse(((List<String>) chart.get("sources")).isEmpty(), chart.toString());
    List<Map<String, String>> maintainers = (List<Map<String, String>>) chart.get("maintainers");
    assertFalse(maintainers.isEmpty() || maintainers.get(0).getOrDefault("name", "").isBlank(), chart.toString());
    for (Map<String, String> maintainer : maintainers) {
      assertTrue(maintainer.getOrDefault("email", "").contains("@")
          || maintainer.getOrDefault("url", "").startsWith("https://"), "a way to reach " + maintainer);
    }
    // the icon: the raw content of an SVG the repository holds, on its main branch
    String icon = (String) chart.get("icon");
    String rawPrefix = chart.get("home") + "/raw/main/";
    assertTrue(icon != null && icon.startsWith(rawPrefix) && icon.endsWith(".svg"), "icon " + icon);
    java.nio.file.Path svg = dev.syncgc.e2e.support.TestCluster.repoRoot().resolve(icon.substring(rawPrefix.length()));
    assertTrue(java.nio.file.Files.readString(svg).contains("<svg"), svg + " is not an SVG");
  }

  /**
   * Artifact Hub's annotations (artifacthub.io/docs/topics/annotations/helm): the CRD as it is in
   * crds/, an example policy the operator accepts, no image (the project publishes none), links, and
   * prerelease while the chart is 0.x.
   */
  @Test
  @SuppressWarnings("unchecked")
  void artifactHubAnnotationsDescribeTheCrdTheImageAndTheLinks() throws Exception {
    var yaml = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
    Map<String, Object> chart = helm.chartYaml();
    Map<String, String> annotations = (Map<String, String>) chart.get("annotations");
    assertEquals("true", annotations.get("artifacthub.io/operator"));
    assertEquals(String.valueOf(chart.get("version")).startsWith("0."),
        "true".equals(annotations.get("artifacthub.io/prerelease")), "prerelease while 0.x: " + annotations);

    // crds: the one CRD of files/crds/ (templates/crds.yaml), by kind, served version and name
    java.nio.file.Path crdFile;
    try (var files = java.nio.file.Files.list(helm.chart().resolve("files").resolve("crds"))) {
      List<java.nio.file.Path> all = files.toList();
      assertEquals(1, all.size(), all.toString());
      crdFile = all.get(0);
    }
    var crd = yaml.unmarshal(java.nio.file.Files.readString(crdFile),
        io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class);
    List<Map<String, String>> crds = yaml.unmarshal(annotations.get("artifacthub.io/crds"), List.class);
    assertEquals(1, crds.size(), crds.toString());
    Map<String, String> entry = crds.get(0);
    assertEquals(crd.getSpec().getNames().getKind(), entry.get("kind"));
    assertEquals(crd.getMetadata().getName(), entry.get("name"));
    assertTrue(crd.getSpec().getVersions().stream().anyMatch(v -> v.getName().equals(entry.get("version")) && v.getServed()),
        entry.toString());
    assertFalse(entry.getOrDefault("displayName", "").isBlank() || entry.getOrDefault("description", "").isBlank(),
        entry.toString());

    // crdsExamples: each a policy of that CRD whose fields its schema knows, and which the operator takes
    List<Map<String, Object>> examples = yaml.unmarshal(annotations.get("artifacthub.io/crdsExamples"), List.class);
    assertFalse(examples.isEmpty());
    var schema = crd.getSpec().getVersions().stream().filter(v -> v.getName().equals(entry.get("version")))
        .findFirst().orElseThrow().getSchema().getOpenAPIV3Schema();
    for (Map<String, Object> example : examples) {
      assertEquals(crd.getSpec().getGroup() + "/" + entry.get("version"), example.get("apiVersion"));
      assertEquals(entry.get("kind"), example.get("kind"));
      assertKnownBySchema("spec", example.get("spec"), schema.getProperties().get("spec"));
      var policy = yaml.unmarshal(yaml.asYaml(example), dev.syncgc.policy.GarbageCollectionPolicy.class);
      assertNotNull(dev.syncgc.policy.PolicyTranslator.translate(policy), example.toString());
    }

    // images: none, since the project publishes none (make dist IMAGE=... names the one you push)
    assertFalse(annotations.containsKey("artifacthub.io/images"),
        "artifacthub.io/images names an image no registry serves: " + annotations.get("artifacthub.io/images"));

    List<Map<String, String>> links = yaml.unmarshal(annotations.get("artifacthub.io/links"), List.class);
    assertFalse(links.isEmpty());
    for (Map<String, String> link : links) {
      assertFalse(link.getOrDefault("name", "").isBlank(), link.toString());
      assertTrue(link.getOrDefault("url", "").startsWith(chart.get("home") + "/"), link.toString());
    }
  }

  /** Every field of {@code value} is a property the CRD's schema declares, all the way down. */
  @SuppressWarnings("unchecked")
  private static void assertKnownBySchema(String path, Object value,
      io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps schema) {
    assertNotNull(schema, path + " is not in the CRD's schema");
    if (value instanceof Map<?, ?> map && schema.getAdditionalProperties() != null
        && schema.getAdditionalProperties().getSchema() != null) {
      // a map (matchLabels): any key, each value as additionalProperties says
      for (Map.Entry<String, Object> field : ((Map<String, Object>) map).entrySet()) {
        assertKnownBySchema(path + "." + field.getKey(), field.getValue(), schema.getAdditionalProperties().getSchema());
      }
    } else if (value instanceof Map<?, ?> map) {
      for (Map.Entry<String, Object> field : ((Map<String, Object>) map).entrySet()) {
        var properties = schema.getProperties();
        assertTrue(properties != null && properties.containsKey(field.getKey()),
            path + "." + field.getKey() + " is not in the CRD's schema");
        assertKnownBySchema(path + "." + field.getKey(), field.getValue(), properties.get(field.getKey()));
      }
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        assertKnownBySchema(path + "[" + i + "]", list.get(i), schema.getItems().getSchema());
      }
    }
  }

  @Test
  void defaultRenderHoldsTheOperatorAndItsRbacInTheReleaseNamespace() {
    Rendered r = helm.render();
    ServiceAccount sa = operatorServiceAccount(r).orElseThrow();
    Deployment deployment = r.one(Deployment.class);
    ClusterRoleBinding binding = operatorBinding(r);
    ClusterRole role = operatorRole(r);

    assertEquals(FULLNAME, deployment.getMetadata().getName());
    assertEquals(sa.getMetadata().getName(), podSpec(deployment).getServiceAccountName());
    assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
    assertEquals("ClusterRole", binding.getRoleRef().getKind());
    assertEquals(1, binding.getSubjects().size());
    assertEquals("ServiceAccount", binding.getSubjects().get(0).getKind());
    assertEquals(sa.getMetadata().getName(), binding.getSubjects().get(0).getName());
    assertEquals(Helm.NAMESPACE, binding.getSubjects().get(0).getNamespace());
    for (HasMetadata o : r.objects()) {
      if (!(o instanceof ClusterRole) && !(o instanceof ClusterRoleBinding) && !(o instanceof CustomResourceDefinition)) {
        assertEquals(Helm.NAMESPACE, o.getMetadata().getNamespace(), "namespace of " + o.getKind());
      }
    }
    assertEquals(Helm.IMAGE_REPOSITORY + ":" + helm.appVersion(), operator(deployment).getImage(),
        "image tag defaults to appVersion");
    assertEquals(1, deployment.getSpec().getReplicas());
  }

  // --- the CRD, from templates/ so that helm upgrade upgrades it

  @Test
  void crdIsTheGeneratedOneWithTheReleasesLabelsAndKeptOnUninstallByDefault() throws Exception {
    var yaml = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
    var generated = yaml.unmarshal(java.nio.file.Files.readString(
        helm.chart().getParent().getParent().resolve("crds").resolve("garbagecollectionpolicies.syncgc.dev-v1.yml")),
        CustomResourceDefinition.class);
    CustomResourceDefinition rendered = helm.render().one(CustomResourceDefinition.class);
    // the rendering goes through fromYaml and toYaml: nothing of the CRD may change on the way
    assertEquals(generated.getSpec(), rendered.getSpec());
    assertEquals(generated.getMetadata().getName(), rendered.getMetadata().getName());
    assertEquals(Map.of("helm.sh/resource-policy", "keep"), rendered.getMetadata().getAnnotations());
    assertEquals("syncgc", rendered.getMetadata().getLabels().get("app.kubernetes.io/part-of"));
    assertEquals(Helm.RELEASE, rendered.getMetadata().getLabels().get("app.kubernetes.io/instance"));

    CustomResourceDefinition notKept = helm.render("--set", "crds.keep=false").one(CustomResourceDefinition.class);
    assertTrue(notKept.getMetadata().getAnnotations() == null
        || !notKept.getMetadata().getAnnotations().containsKey("helm.sh/resource-policy"), notKept.getMetadata().toString());
    assertTrue(helm.render("--set", "crds.enabled=false").all(CustomResourceDefinition.class).isEmpty());
  }

  @Test
  void serviceAccountCanBeAnExistingOne() {
    Rendered r = helm.render("--set", "serviceAccount.create=false", "--set", "serviceAccount.name=existing");
    assertTrue(operatorServiceAccount(r).isEmpty(), r.kinds().toString());
    assertEquals("existing", podSpec(r.one(Deployment.class)).getServiceAccountName());
    assertEquals("existing", operatorBinding(r).getSubjects().get(0).getName());
    assertEquals("existing", podSpec(releaseJob(r).orElseThrow()).getServiceAccountName());

    ProcessRunner.Result noName = helm.template("", "--set", "serviceAccount.create=false");
    assertFalse(noName.ok(), noName.describe());
    assertTrue(noName.stderr().contains("serviceAccount.name"), noName.describe());
  }

  // --- RBAC

  @Test
  void clusterRoleGrantsExactlyTheDocumentedRulesByDefault() {
    Map<String, Set<String>> grants = grants(operatorRole(helm.render()));
    Map<String, Set<String>> expected = new LinkedHashMap<>();
    expected.put("*/*", TRACKED_VERBS); // every served kind, as the built-in collector's own role
    expected.put("apiextensions.k8s.io/customresourcedefinitions", Set.of("get", "list", "watch"));
    expected.put("/namespaces", Set.of("get", "list", "watch"));
    expected.put("/events", Set.of("create", "patch"));
    expected.put("events.k8s.io/events", Set.of("create", "patch"));
    expected.put("syncgc.dev/garbagecollectionpolicies", Set.of("get", "list", "watch"));
    expected.put("syncgc.dev/garbagecollectionpolicies/status", Set.of("get", "update", "patch"));
    assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(grants.keySet()));
    expected.forEach((gr, verbs) -> assertEquals(verbs, grants.get(gr), "verbs on " + gr));
  }

  @Test
  void noRbacRuleHasWildcardOrUnlistedVerbs() {
    Set<String> allowed = Set.of("get", "list", "watch", "patch", "delete", "create", "update");
    for (Rendered r : List.of(helm.render(), helm.render("--set", "replicaCount=2"))) {
      List<PolicyRule> rules = new ArrayList<>(operatorRole(r).getRules());
      // the helm test's Role is checked by helmTestRunsTheCascadeCheckWithItsOwnNarrowRole
      r.all(Role.class).stream().filter(role -> !isTest(role)).forEach(role -> rules.addAll(role.getRules()));
      for (PolicyRule rule : rules) {
        assertFalse(rule.getVerbs().contains("*"), "wildcard verb in " + rule);
        assertTrue(allowed.containsAll(rule.getVerbs()), "unexpected verb in " + rule);
        assertTrue(rule.getNonResourceURLs() == null || rule.getNonResourceURLs().isEmpty(), rule.toString());
        for (String resource : rule.getResources()) {
          // Only the tracked kinds may be deleted; nothing may be created but Events and Leases.
          if (rule.getVerbs().contains("delete")) {
            assertTrue(TRACKED_VERBS.containsAll(rule.getVerbs()), rule.toString());
          }
          if (rule.getVerbs().contains("create")) {
            assertTrue(Set.of("events", "leases").contains(resource), "create on " + resource);
          }
        }
      }
    }
  }

  // --- RBAC for people: policies in the built-in roles, and the plugin's role

  @Test
  void policyRolesAreAggregatedIntoViewEditAndAdminByDefault() {
    Rendered r = helm.render();
    ClusterRole view = named(r.all(ClusterRole.class), FULLNAME + "-view");
    ClusterRole edit = named(r.all(ClusterRole.class), FULLNAME + "-edit");
    assertEquals(Map.of("syncgc.dev/garbagecollectionpolicies", Set.of("get", "list", "watch")), grants(view));
    assertEquals(Map.of("syncgc.dev/garbagecollectionpolicies", Set.of("create", "update", "patch", "delete")),
        grants(edit));
    for (String to : List.of("view", "edit", "admin")) {
      assertEquals("true", view.getMetadata().getLabels().get("rbac.authorization.k8s.io/aggregate-to-" + to), to);
    }
    assertEquals(null, edit.getMetadata().getLabels().get("rbac.authorization.k8s.io/aggregate-to-view"),
        "view must not write policies");
    for (String to : List.of("edit", "admin")) {
      assertEquals("true", edit.getMetadata().getLabels().get("rbac.authorization.k8s.io/aggregate-to-" + to), to);
    }
    assertEquals("syncgc", view.getMetadata().getLabels().get("app.kubernetes.io/part-of"));

    Rendered off = helm.render("--set", "rbac.aggregateToDefaultRoles=false");
    assertEquals(List.of(FULLNAME, FULLNAME + "-plugin"),
        off.all(ClusterRole.class).stream().map(c -> c.getMetadata().getName()).sorted().toList());
  }

  @Test
  void pluginRoleListsEveryKindGetsNoSubresourceAndIsBoundToNoOneByDefault() {
    Rendered r = helm.render();
    ClusterRole plugin = named(r.all(ClusterRole.class), FULLNAME + "-plugin");
    Map<String, Set<String>> expected = new LinkedHashMap<>();
    expected.put("*/*", Set.of("list")); // every kind's objects: Secrets too (helm/README.md says so)
    expected.put("/namespaces", Set.of("get"));
    assertEquals(expected, grants(plugin));
    assertTrue(plugin.getMetadata().getLabels().keySet().stream().noneMatch(l -> l.contains("aggregate-to")),
        "the plugin's role reads Secrets: never folded into a built-in role " + plugin.getMetadata().getLabels());
    Role metrics = named(r.all(Role.class), FULLNAME + "-plugin");
    assertEquals(Helm.NAMESPACE, metrics.getMetadata().getNamespace());
    assertEquals(Map.of("/pods/proxy", Set.of("get")), grants(metrics.getRules()));
    assertTrue(r.all(ClusterRoleBinding.class).stream().noneMatch(b -> b.getMetadata().getName().endsWith("-plugin")));
    assertTrue(r.all(RoleBinding.class).stream().noneMatch(b -> b.getMetadata().getName().endsWith("-plugin")));

    Rendered off = helm.render("--set", "rbac.pluginRole.enabled=false");
    assertTrue(off.all(ClusterRole.class).stream().noneMatch(c -> c.getMetadata().getName().endsWith("-plugin")));
    assertTrue(off.all(Role.class).stream().noneMatch(c -> c.getMetadata().getName().endsWith("-plugin")));
  }

  @Test
  void pluginSubjectsAreBoundToBothPluginRoles() {
    Rendered r = helm.render("--set-json", "rbac.pluginRole.subjects=[{\"kind\":\"Group\",\"apiGroup\":"
        + "\"rbac.authorization.k8s.io\",\"name\":\"sre\"},{\"kind\":\"ServiceAccount\",\"name\":\"ci\","
        + "\"namespace\":\"tools\"}]");
    ClusterRoleBinding cluster = named(r.all(ClusterRoleBinding.class), FULLNAME + "-plugin");
    RoleBinding local = named(r.all(RoleBinding.class), FULLNAME + "-plugin");
    assertEquals("ClusterRole", cluster.getRoleRef().getKind());
    assertEquals(FULLNAME + "-plugin", cluster.getRoleRef().getName());
    assertEquals("Role", local.getRoleRef().getKind());
    assertEquals(FULLNAME + "-plugin", local.getRoleRef().getName());
    assertEquals(Helm.NAMESPACE, local.getMetadata().getNamespace());
    for (var subjects : List.of(cluster.getSubjects(), local.getSubjects())) {
      assertEquals(List.of("Group/sre", "ServiceAccount/ci"),
          subjects.stream().map(s -> s.getKind() + "/" + s.getName()).toList());
      assertEquals("tools", subjects.get(1).getNamespace());
    }
  }

  @Test
  void rbacRulesAndBuiltinKindsFlagFollowTrackedKinds() {
    String values = """
        trackedKinds:
          everyServedKind: false
          builtin:
            - {group: "", kind: ConfigMap, resource: configmaps}
            - {group: apps, kind: Deployment, resource: deployments}
            - {group: policy, kind: PodDisruptionBudget, resource: poddisruptionbudgets}
          customResources:
            - apiGroups: ["example.com"]
              resources: ["widgets", "gadgets"]
        """;
    Rendered r = helm.renderValues(values);
    Map<String, Set<String>> grants = grants(operatorRole(r));

    for (String gr : List.of("/configmaps", "apps/deployments", "policy/poddisruptionbudgets",
        "example.com/widgets", "example.com/gadgets")) {
      assertEquals(TRACKED_VERBS, grants.get(gr), "verbs on " + gr + " in " + grants);
    }
    for (String gone : List.of("/secrets", "/pods", "/services", "apps/replicasets", "batch/jobs", "*/*")) {
      assertFalse(grants.containsKey(gone), gone + " still granted: " + grants);
    }
    assertTrue(grants.keySet().stream().noneMatch(gr -> gr.contains("*")), "a wildcard is left: " + grants);

    String kinds = "ConfigMap,apps/Deployment,policy/PodDisruptionBudget";
    assertEquals(Optional.of(kinds), flag(operator(r.one(Deployment.class)), "--builtin-kinds"));
    assertEquals(kinds, env(container(releaseJob(r).orElseThrow()), "SYNCGC_BUILTIN_KINDS"));
  }

  @Test
  void byDefaultEveryServedKindIsTrackedWithTheBuiltInCollectorsRights() {
    Rendered r = helm.render();
    assertEquals(TRACKED_VERBS, grants(operatorRole(r)).get("*/*"));
    assertEquals("*", env(container(releaseJob(r).orElseThrow()), "SYNCGC_BUILTIN_KINDS"));
  }

  @Test
  void removingACustomResourceEntryRemovesItsRule() {
    Rendered r = helm.render("--set", "trackedKinds.everyServedKind=false", "--set-json", "trackedKinds.customResources=[]");
    Map<String, Set<String>> grants = grants(operatorRole(r));
    assertTrue(grants.keySet().stream().noneMatch(gr -> gr.contains("*")), grants.toString());
    assertTrue(grants.containsKey("/configmaps"), grants.toString());
  }

  // --- Deployment

  @Test
  void operatorRunsNonRootWithReadOnlyRootFilesystem() {
    Rendered r = helm.render();
    for (HasMetadata workload : List.of(r.one(Deployment.class), releaseJob(r).orElseThrow())) {
      String what = workload.getKind();
      PodSpec pod = podSpec(workload);
      PodSecurityContext psc = pod.getSecurityContext();
      assertNotNull(psc, what);
      assertEquals(Boolean.TRUE, psc.getRunAsNonRoot(), what);
      assertEquals(65532L, psc.getRunAsUser(), what);
      assertEquals("RuntimeDefault", psc.getSeccompProfile().getType(), what);

      Container c = container(workload);
      SecurityContext sc = c.getSecurityContext();
      assertNotNull(sc, what);
      assertEquals(Boolean.TRUE, sc.getRunAsNonRoot(), what);
      assertEquals(65532L, sc.getRunAsUser(), what);
      assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem(), what);
      assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), what);
      assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), what);
      assertTrue(sc.getCapabilities().getAdd() == null || sc.getCapabilities().getAdd().isEmpty(), what);
      assertEquals("RuntimeDefault", sc.getSeccompProfile().getType(), what);

      // The JVM needs a writable /tmp on the read-only root filesystem.
      var tmp = c.getVolumeMounts().stream().filter(m -> "/tmp".equals(m.getMountPath())).findFirst();
      assertTrue(tmp.isPresent(), what + " mounts nothing at /tmp");
      assertTrue(pod.getVolumes().stream()
          .anyMatch(v -> v.getName().equals(tmp.get().getName()) && v.getEmptyDir() != null), what);
    }
    for (HasMetadata workload : List.of(r.one(Deployment.class), releaseJob(r).orElseThrow())) {
      Container c = container(workload);
      // a JVM grows into its limit: a request below it makes the Pod first in line for eviction
      assertEquals("1Gi", c.getResources().getRequests().get("memory").toString(), workload.getKind());
      assertEquals("1Gi", c.getResources().getLimits().get("memory").toString(), workload.getKind());
      assertEquals("100m", c.getResources().getRequests().get("cpu").toString(), workload.getKind());
    }
  }

  @Test
  void jvmExitsOnOutOfMemoryAndJvmOptionsCanBeChanged() {
    Rendered r = helm.render();
    for (HasMetadata workload : List.of(r.one(Deployment.class), releaseJob(r).orElseThrow())) {
      assertEquals("-XX:+ExitOnOutOfMemoryError", env(container(workload), "JDK_JAVA_OPTIONS"), workload.getKind());
    }
    assertTrue(container(helmTestPod(r)).getCommand().contains("-XX:+ExitOnOutOfMemoryError"));

    Rendered custom = helm.render("--set-json", "jvmOptions=[\"-XX:+ExitOnOutOfMemoryError\",\"-Xss512k\"]");
    assertEquals("-XX:+ExitOnOutOfMemoryError -Xss512k", env(operator(custom.one(Deployment.class)), "JDK_JAVA_OPTIONS"));
    Rendered none = helm.render("--set-json", "jvmOptions=[]");
    assertTrue(operator(none.one(Deployment.class)).getEnv().stream().noneMatch(e -> e.getName().equals("JDK_JAVA_OPTIONS")));
  }

  // --- helm test

  @Test
  void helmTestRunsTheCascadeCheckWithItsOwnNarrowRole() throws Exception {
    Rendered r = helm.render();
    Deployment deployment = r.one(Deployment.class);
    io.fabric8.kubernetes.api.model.Pod pod = helmTestPod(r);
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    assertEquals("test", annotations.get("helm.sh/hook"));
    assertEquals(Set.of("before-hook-creation", "hook-succeeded"),
        Set.copyOf(Arrays.asList(annotations.get("helm.sh/hook-delete-policy").split(","))),
        "a passed test leaves nothing (helm uninstall deletes no test hook)");
    assertTrue(annotations.get("helm.sh/hook-output-log-policy").contains("hook-failed"));
    assertEquals("Never", pod.getSpec().getRestartPolicy());

    Container c = container(pod);
    assertEquals(operator(deployment).getImage(), c.getImage(), "the operator image: its java and jar");
    List<String> command = c.getCommand();
    assertEquals("java", command.get(0));
    String jar = command.get(command.indexOf("-cp") + 1);
    assertEquals("/app/syncgc-operator.jar", jar, "the jar the Dockerfile copies");
    String mainClass = command.get(command.size() - 1);
    assertNotNull(Class.forName(mainClass).getMethod("main", String[].class), "the main the command names");
    assertEquals(Helm.NAMESPACE, env(c, "SYNCGC_TEST_NAMESPACE"));
    assertEquals("2m", env(c, "SYNCGC_TEST_TIMEOUT"));
    assertEquals(Helm.NAMESPACE + "/" + FULLNAME, env(c, "SYNCGC_TEST_OPERATOR"), "named when the finalizer never comes");
    assertEquals(operator(deployment).getSecurityContext(), c.getSecurityContext());
    assertEquals(podSpec(deployment).getSecurityContext(), pod.getSpec().getSecurityContext());
    assertEquals(c.getResources().getRequests().get("memory"), c.getResources().getLimits().get("memory"));

    // not counted as an operator Pod: the metrics Service and the release Job select by these labels
    Map<String, String> selector = deployment.getSpec().getSelector().getMatchLabels();
    assertFalse(pod.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()), pod.getMetadata().getLabels().toString());

    // its own ServiceAccount: ConfigMaps in the test's namespace, nothing else
    String sa = pod.getSpec().getServiceAccountName();
    assertEquals(FULLNAME + "-test", sa);
    assertTrue(r.all(ServiceAccount.class).stream().anyMatch(a -> a.getMetadata().getName().equals(sa) && !isHook(a)));
    Role role = r.all(Role.class).stream().filter(HelmChartIT::isTest).findFirst().orElseThrow();
    assertFalse(isHook(role), "installed with the release: helm test --logs reads a Pod named after each hook");
    assertEquals(Helm.NAMESPACE, role.getMetadata().getNamespace());
    assertEquals(1, role.getRules().size());
    PolicyRule rule = role.getRules().get(0);
    assertEquals(List.of(""), rule.getApiGroups());
    assertEquals(List.of("configmaps"), rule.getResources());
    assertEquals(Set.of("get", "list", "watch", "create", "patch", "delete"), Set.copyOf(rule.getVerbs()));
    RoleBinding binding = r.all(RoleBinding.class).stream().filter(HelmChartIT::isTest).findFirst().orElseThrow();
    assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
    assertEquals(sa, binding.getSubjects().get(0).getName());
    assertEquals(Helm.NAMESPACE, binding.getSubjects().get(0).getNamespace());
  }

  @Test
  void helmTestRunsInANamespaceSyncgcTracks() {
    Rendered inList = helm.render("--set-json", "namespaces=[\"a\",\"" + Helm.NAMESPACE + "\"]");
    assertEquals(Helm.NAMESPACE, env(container(helmTestPod(inList)), "SYNCGC_TEST_NAMESPACE"));

    Rendered elsewhere = helm.render("--set-json", "namespaces=[\"team-a\",\"team-b\"]");
    assertEquals("team-a", env(container(helmTestPod(elsewhere)), "SYNCGC_TEST_NAMESPACE"));
    Role role = elsewhere.all(Role.class).stream().filter(HelmChartIT::isTest).findFirst().orElseThrow();
    assertEquals("team-a", role.getMetadata().getNamespace());
    RoleBinding binding = elsewhere.all(RoleBinding.class).stream().filter(HelmChartIT::isTest).findFirst().orElseThrow();
    assertEquals("team-a", binding.getMetadata().getNamespace());
    assertEquals(Helm.NAMESPACE, binding.getSubjects().get(0).getNamespace(), "the ServiceAccount stays in the release namespace");
  }

  @Test
  void noHelmTestWhenDisabledOrConfigMapsAreNotTracked() {
    for (Rendered r : List.of(helm.render("--set", "test.enabled=false"),
        helm.render("--set-json", "trackedKinds.builtin=[{\"group\":\"apps\",\"kind\":\"Deployment\",\"resource\":\"deployments\"}]"))) {
      assertTrue(r.objects().stream().noneMatch(HelmChartIT::isTest), r.kinds().toString());
      assertTrue(r.ofKind("Pod").isEmpty(), r.kinds().toString());
    }
  }

  @ParameterizedTest(name = "metrics.service.port={0}")
  @ValueSource(ints = {8080, 9443})
  void probesCheckHealthzAndReadyzOnTheHttpPort(int port) {
    Rendered r = helm.render("--set", "metrics.service.port=" + port);
    Deployment deployment = r.one(Deployment.class);
    Container c = operator(deployment);
    var http = c.getPorts().stream().filter(p -> "http".equals(p.getName())).findFirst().orElseThrow();
    assertEquals(port, http.getContainerPort());
    assertEquals(Optional.of(String.valueOf(port)), flag(c, "--http-port"));

    assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("http", c.getLivenessProbe().getHttpGet().getPort().getStrVal());
    assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
    assertEquals("http", c.getReadinessProbe().getHttpGet().getPort().getStrVal());

    // The metrics Service reaches that port on the operator Pods.
    Service service = r.one(Service.class);
    ServicePort sp = service.getSpec().getPorts().get(0);
    assertEquals("http-metrics", sp.getName());
    assertEquals(port, sp.getPort());
    assertEquals("http", sp.getTargetPort().getStrVal());
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertTrue(podLabels.entrySet().containsAll(service.getSpec().getSelector().entrySet()),
        "Service selector " + service.getSpec().getSelector() + " does not match Pod labels " + podLabels);
    assertTrue(podLabels.entrySet().containsAll(deployment.getSpec().getSelector().getMatchLabels().entrySet()));
  }

  // --- uninstall

  @Test
  void preDeleteHookJobReleasesFinalizersByDefault() {
    Rendered r = helm.render();
    Deployment deployment = r.one(Deployment.class);
    Job job = releaseJob(r).orElseThrow(() -> new AssertionError("no release Job: " + r.kinds()));
    Map<String, String> annotations = job.getMetadata().getAnnotations();
    assertEquals("pre-delete", annotations.get("helm.sh/hook"));
    assertEquals(Set.of("before-hook-creation", "hook-succeeded"),
        Set.copyOf(Arrays.asList(annotations.get("helm.sh/hook-delete-policy").split(","))));

    Container c = container(job);
    assertEquals(List.of("release"), c.getArgs());
    assertTrue(c.getCommand() == null || c.getCommand().isEmpty(), "the image's entrypoint runs `release`");
    assertEquals(operator(deployment).getImage(), c.getImage());
    assertEquals(podSpec(deployment).getServiceAccountName(), podSpec(job).getServiceAccountName());
    assertEquals(operator(deployment).getSecurityContext(), c.getSecurityContext());
    assertEquals(podSpec(deployment).getSecurityContext(), podSpec(job).getSecurityContext());
    assertEquals("Never", podSpec(job).getRestartPolicy());
    assertNotNull(job.getSpec().getActiveDeadlineSeconds(), "a stuck release must not hang helm uninstall");
    assertEquals(deployment.getMetadata().getName(), env(c, "SYNCGC_OPERATOR_DEPLOYMENT"));
    // the Job waits until no Pod matches the Deployment's selector: its own Pod must not match, or it
    // waits for itself until its deadline and helm uninstall fails
    Map<String, String> selector = deployment.getSpec().getSelector().getMatchLabels();
    Map<String, String> jobPodLabels = job.getSpec().getTemplate().getMetadata().getLabels();
    assertFalse(jobPodLabels.entrySet().containsAll(selector.entrySet()), "the release Pod matches the operator's selector: " + jobPodLabels);

    // A hook-only Role lets the Job stop the operator first, and nothing else.
    Role hookRole = r.all(Role.class).stream().filter(HelmChartIT::isHook).findFirst()
        .orElseThrow(() -> new AssertionError("no hook Role: " + r.kinds()));
    assertEquals("pre-delete", hookRole.getMetadata().getAnnotations().get("helm.sh/hook"));
    assertTrue(hookWeight(hookRole) < hookWeight(job), "the Role must exist before the Job");
    for (PolicyRule rule : hookRole.getRules()) {
      if (rule.getApiGroups().contains("apps")) {
        assertEquals(List.of(deployment.getMetadata().getName()), rule.getResourceNames(), rule.toString());
      } else {
        assertEquals(List.of("pods"), rule.getResources(), rule.toString());
        assertEquals(Set.of("get", "list", "watch"), Set.copyOf(rule.getVerbs()), rule.toString());
      }
    }
    RoleBinding hookBinding = r.all(RoleBinding.class).stream().filter(HelmChartIT::isHook).findFirst()
        .orElseThrow(() -> new AssertionError("no hook RoleBinding: " + r.kinds()));
    assertEquals(hookRole.getMetadata().getName(), hookBinding.getRoleRef().getName());
    assertEquals(podSpec(job).getServiceAccountName(), hookBinding.getSubjects().get(0).getName());
    assertTrue(hookWeight(hookBinding) < hookWeight(job), "the RoleBinding must exist before the Job");

    // Argo CD runs no Helm hook: the same three are its PreDelete hooks, in the same order
    for (HasMetadata hook : List.of(hookRole, hookBinding, job)) {
      Map<String, String> a = hook.getMetadata().getAnnotations();
      assertEquals("PreDelete", a.get("argocd.argoproj.io/hook"), hook.getKind());
      assertEquals(a.get("helm.sh/hook-weight"), a.get("argocd.argoproj.io/sync-wave"), hook.getKind());
      assertEquals(Set.of("BeforeHookCreation", "HookSucceeded"),
          Set.copyOf(Arrays.asList(a.get("argocd.argoproj.io/hook-delete-policy").split(","))), hook.getKind());
    }
  }

  // --- helpers

  /** The chart's ServiceAccount, not the helm test's. */
  private static Optional<ServiceAccount> operatorServiceAccount(Rendered r) {
    List<ServiceAccount> found = r.all(ServiceAccount.class).stream().filter(a -> !isTest(a)).toList();
    assertTrue(found.size() <= 1, r.kinds().toString());
    return found.stream().findFirst();
  }

  private static io.fabric8.kubernetes.api.model.Pod helmTestPod(Rendered r) {
    return r.one(io.fabric8.kubernetes.api.model.Pod.class);
  }

  /** One of the helm test's objects (its Pod, ServiceAccount, Role, RoleBinding). */
  private static boolean isTest(HasMetadata o) {
    return o.getMetadata().getLabels() != null && "test".equals(o.getMetadata().getLabels().get("app.kubernetes.io/component"));
  }

  private static Optional<Job> releaseJob(Rendered r) {
    return r.all(Job.class).stream().findFirst();
  }

  private static PodSpec podSpec(HasMetadata workload) {
    if (workload instanceof Deployment d) {
      return d.getSpec().getTemplate().getSpec();
    }
    if (workload instanceof Job j) {
      return j.getSpec().getTemplate().getSpec();
    }
    if (workload instanceof io.fabric8.kubernetes.api.model.Pod p) {
      return p.getSpec();
    }
    throw new IllegalArgumentException(workload.getKind());
  }

  private static Container container(HasMetadata workload) {
    List<Container> containers = podSpec(workload).getContainers();
    assertEquals(1, containers.size(), workload.getKind() + " containers");
    return containers.get(0);
  }

  private static Container operator(Deployment deployment) {
    return container(deployment);
  }

  /** The value of {@code --name=value} in the container's args; empty if absent. */
  private static Optional<String> flag(Container c, String name) {
    List<String> values = c.getArgs().stream()
        .filter(a -> a.startsWith(name + "="))
        .map(a -> a.substring(name.length() + 1))
        .toList();
    assertTrue(values.size() <= 1, name + " given twice: " + c.getArgs());
    return values.stream().findFirst();
  }

  private static String env(Container c, String name) {
    return c.getEnv().stream().filter(e -> name.equals(e.getName())).map(EnvVar::getValue).findFirst()
        .orElseThrow(() -> new AssertionError("no env " + name + " in " + c.getName()));
  }

  /** The operator's own ClusterRole ({@code <fullname>}), among the chart's others (view, edit, plugin). */
  private static ClusterRole operatorRole(Rendered r) {
    return named(r.all(ClusterRole.class), FULLNAME);
  }

  private static ClusterRoleBinding operatorBinding(Rendered r) {
    return named(r.all(ClusterRoleBinding.class), FULLNAME);
  }

  private static <T extends HasMetadata> T named(List<T> objects, String name) {
    List<T> found = objects.stream().filter(o -> name.equals(o.getMetadata().getName())).toList();
    assertEquals(1, found.size(), name + " among " + objects.stream().map(o -> o.getMetadata().getName()).toList());
    return found.get(0);
  }

  /** "group/resource" to verbs, over the rules of any role (resourceNames not allowed). */
  private static Map<String, Set<String>> grants(List<PolicyRule> rules) {
    Map<String, Set<String>> grants = new LinkedHashMap<>();
    for (PolicyRule rule : rules) {
      assertTrue(rule.getResourceNames() == null || rule.getResourceNames().isEmpty(), rule.toString());
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          grants.computeIfAbsent(group + "/" + resource, k -> new TreeSet<>()).addAll(rule.getVerbs());
        }
      }
    }
    return grants;
  }

  /** "group/resource" (group empty for the core group) to the verbs granted on it, over all rules. */
  private static Map<String, Set<String>> grants(ClusterRole role) {
    return grants(role.getRules());
  }

  private static boolean isHook(HasMetadata o) {
    return o.getMetadata().getAnnotations() != null && o.getMetadata().getAnnotations().containsKey("helm.sh/hook");
  }

  private static int hookWeight(HasMetadata o) {
    return Integer.parseInt(o.getMetadata().getAnnotations().getOrDefault("helm.sh/hook-weight", "0"));
  }
}
