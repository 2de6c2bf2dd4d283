package dev.syncgc.engine;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;

/**
 * ConfigMaps as owners and dependents for the edge tests, a graph in which every owner kind is a
 * tracked, namespaced one, and clients with only the permissions a test grants. What a test leaves
 * with finalizers is released afterwards, so that its namespace can go.
 */
final class EdgeObjects {
  private final KubernetesClient client;
  private final DependencyGraph graph = new DependencyGraph(new KindInfo() {
    @Override
    public Scope scope(OwnerLink link) {
      return Scope.NAMESPACED;
    }

    @Override
    public boolean tracked(OwnerLink link) {
      return true;
    }
  });
  private final Set<String> namespaces = new java.util.LinkedHashSet<>();
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final List<io.fabric8.kubernetes.api.model.rbac.RoleBinding> bindings = new ArrayList<>();

  EdgeObjects(KubernetesClient client) {
    this.client = client;
  }

  DependencyGraph graph() {
    return graph;
  }

  ConfigMap create(String namespace, String name, List<ObjectRef> owners, List<String> finalizers) {
    return create(namespace, name, owners, finalizers, null);
  }

  /** As above, with {@code blockOwnerDeletion} set on every reference (null: left out, as above). */
  ConfigMap create(String namespace, String name, List<ObjectRef> owners, List<String> finalizers,
      Boolean blockOwnerDeletion) {
    namespaces.add(namespace);
    List<OwnerReference> refs = owners.stream().map(o -> new OwnerReferenceBuilder().withApiVersion("v1")
        .withKind("ConfigMap").withName(o.name()).withUid(o.uid()).withBlockOwnerDeletion(blockOwnerDeletion)
        .build()).toList();
    return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
        .withName(name).withOwnerReferences(refs).withFinalizers(finalizers).endMetadata()
        .addToData("k", "v").build()).create();
  }

  /** An owner with the syncgc finalizer and a deadline ten minutes away, being deleted. */
  ObjectMetadata ownerUnderDeletion(String namespace, String name) {
    create(namespace, name, List.of(), List.of(Names.FINALIZER));
    client.configMaps().inNamespace(namespace).withName(name).edit(c -> {
      c.getMetadata().setAnnotations(Map.of(Names.DEADLINE, Instant.now().plusSeconds(600).toString()));
      return c;
    });
    client.configMaps().inNamespace(namespace).withName(name).delete();
    Awaitility.await().until(() -> get(namespace, name).getMetadata().getDeletionTimestamp() != null);
    return read(namespace, name);
  }

  ObjectRef ref(ConfigMap cm) {
    return read(cm).ref();
  }

  ObjectMetadata read(ConfigMap cm) {
    return new MetadataReader().read(EngineParts.CONFIG_MAP, cm);
  }

  ObjectMetadata read(String namespace, String name) {
    return read(get(namespace, name));
  }

  ConfigMap get(String namespace, String name) {
    return client.configMaps().inNamespace(namespace).withName(name).get();
  }

  List<String> finalizers(String namespace, String name) {
    return get(namespace, name).getMetadata().getFinalizers();
  }

  List<String> ownerUids(String namespace, String name) {
    return get(namespace, name).getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  /** Another writer leaves only the reference to {@code ownerUid}. */
  void keepOnlyOwner(String namespace, String name, String ownerUid) {
    client.configMaps().inNamespace(namespace).withName(name).edit(c -> {
      c.getMetadata().setOwnerReferences(new ArrayList<>(c.getMetadata().getOwnerReferences().stream()
          .filter(o -> o.getUid().equals(ownerUid)).toList()));
      return c;
    });
  }

  /** Another writer changes the object (a new resourceVersion). */
  void label(String namespace, String name) {
    client.configMaps().inNamespace(namespace).withName(name).edit(c -> {
      c.getMetadata().setLabels(Map.of("changed", "true"));
      return c;
    });
  }

  /**
   * An API for a user that may only do {@code verbs} on ConfigMaps of the namespace (on those named
   * {@code names}, or all if empty).
   */
  KubeApi limitedApi(String namespace, SyncgcMetrics metrics, List<String> verbs, List<String> names) {
    String user = "edge-limited-" + UUID.randomUUID().toString().substring(0, 8);
    client.rbac().roles().inNamespace(namespace).resource(new RoleBuilder().withNewMetadata().withName(user)
        .endMetadata().withRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
            .withVerbs(verbs).withResourceNames(names).build()).build()).create();
    bindings.add(new RoleBindingBuilder().withNewMetadata().withName(user).withNamespace(namespace).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "Role", user).addNewSubject().withKind("User")
        .withApiGroup("rbac.authorization.k8s.io").withName(user).endSubject().build());
    grant();
    KubernetesClient limited = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
        .withImpersonateUsername(user).withImpersonateGroups("system:authenticated").build()).build();
    clients.add(limited);
    return new KubeApi(limited, new RateLimiter(1000, 1000), metrics);
  }

  /** Takes back what {@link #limitedApi} granted (the API server's RBAC cache follows soon after). */
  void revoke() {
    bindings.forEach(b -> client.rbac().roleBindings().inNamespace(b.getMetadata().getNamespace())
        .withName(b.getMetadata().getName()).delete());
  }

  /** Grants (again) what {@link #limitedApi} grants. */
  void grant() {
    bindings.forEach(b -> client.rbac().roleBindings().inNamespace(b.getMetadata().getNamespace())
        .resource(new RoleBindingBuilder(b).build()).create());
  }

  /** Removes every finalizer the test's ConfigMaps still have. */
  void releaseAll() {
    clients.forEach(KubernetesClient::close);
    for (String namespace : namespaces) {
      for (ConfigMap cm : client.configMaps().inNamespace(namespace).list().getItems()) {
        if (!cm.getMetadata().getFinalizers().isEmpty()) {
          client.configMaps().inNamespace(namespace).withName(cm.getMetadata().getName()).edit(c -> {
            c.getMetadata().setFinalizers(List.of());
            return c;
          });
        }
      }
    }
  }
}
