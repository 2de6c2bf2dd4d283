package dev.syncgc.e2e.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Acting as a ServiceAccount: the identity the chart's operator has, or one a test throttles. */
public final class ServiceAccounts {
  private ServiceAccounts() {}

  /**
   * What the chart's restricted mode grants an operator told to track ConfigMaps alone (no Leases):
   * ConfigMaps, Namespaces, Events, the CRDs and its policies.
   */
  public static List<PolicyRule> configMapsOnly() {
    return List.of(
        new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
            .withVerbs("get", "list", "watch", "patch", "delete").build(),
        new PolicyRuleBuilder().withApiGroups("apiextensions.k8s.io").withResources("customresourcedefinitions")
            .withVerbs("get", "list", "watch").build(),
        new PolicyRuleBuilder().withApiGroups("").withResources("namespaces").withVerbs("get", "list", "watch").build(),
        new PolicyRuleBuilder().withApiGroups("", "events.k8s.io").withResources("events")
            .withVerbs("create", "patch").build(),
        new PolicyRuleBuilder().withApiGroups("syncgc.dev").withResources("garbagecollectionpolicies")
            .withVerbs("get", "list", "watch").build(),
        new PolicyRuleBuilder().withApiGroups("syncgc.dev").withResources("garbagecollectionpolicies/status")
            .withVerbs("get", "update", "patch").build());
  }

  /**
   * A ServiceAccount {@code account} in {@code namespace}, bound cluster-wide to {@code rules} by a
   * ClusterRole and ClusterRoleBinding of the same name ({@link #unbind} removes them), and a kubeconfig
   * acting as it.
   */
  public static Path boundTo(KubernetesClient client, String namespace, String account, List<PolicyRule> rules)
      throws IOException {
    client.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder().withNewMetadata()
        .withName(account).endMetadata().build()).create();
    client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(account).endMetadata()
        .withRules(rules).build()).create();
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
        .withName(account).endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", account)
        .addNewSubject().withKind("ServiceAccount").withName(account).withNamespace(namespace).endSubject()
        .build()).create();
    return kubeconfig(client, namespace, account);
  }

  /** Removes what {@link #boundTo} created cluster-wide (the ServiceAccount goes with its namespace). */
  public static void unbind(KubernetesClient client, String account) {
    client.rbac().clusterRoleBindings().withName(account).delete();
    client.rbac().clusterRoles().withName(account).delete();
  }

  /**
   * A kubeconfig acting as the ServiceAccount: {@code e2e/cluster.sh sa-kubeconfig} on the local
   * control plane (with the same SYNCGC_* settings as this JVM, so it targets the same cluster),
   * otherwise built here from a TokenRequest.
   */
  public static Path kubeconfig(KubernetesClient client, String namespace, String name) throws IOException {
    Path file = TestCluster.targetDir().resolve("sa-" + namespace + "-" + name + ".kubeconfig");
    Files.createDirectories(file.getParent());
    if (TestCluster.get().isLocal()) {
      // the environment is inherited; settings given as system properties are passed on too
      Map<String, String> settings = new HashMap<>();
      for (String key : System.getProperties().stringPropertyNames()) {
        if (key.startsWith("SYNCGC_")) {
          settings.put(key, System.getProperty(key));
        }
      }
      ProcessRunner.Result result = ProcessRunner.run(List.of("bash",
          TestCluster.repoRoot().resolve("e2e/cluster.sh").toString(), "sa-kubeconfig", namespace, name,
          file.toString()), settings, Duration.ofSeconds(60));
      assertEquals(0, result.exitCode(), "cluster.sh sa-kubeconfig: " + result.describe());
      return file;
    }
    String token = client.serviceAccounts().inNamespace(namespace).withName(name)
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(86400L).endSpec().build())
        .getStatus().getToken();
    Config config = client.getConfiguration();
    String ca = config.getCaCertData();
    if ((ca == null || ca.isBlank()) && config.getCaCertFile() != null) {
      ca = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
    }
    String tls = ca == null || ca.isBlank() ? "    insecure-skip-tls-verify: true\n"
        : "    certificate-authority-data: " + ca + "\n";
    Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n"
        + "    server: " + config.getMasterUrl() + "\n" + tls
        + "users:\n- name: " + namespace + "-" + name + "\n  user:\n    token: " + token + "\n"
        + "contexts:\n- name: e2e\n  context: {cluster: e2e, user: " + namespace + "-" + name
        + ", namespace: " + namespace + "}\ncurrent-context: e2e\n", StandardCharsets.UTF_8);
    return file;
  }

}
