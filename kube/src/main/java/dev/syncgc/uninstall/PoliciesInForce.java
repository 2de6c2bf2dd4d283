package dev.syncgc.uninstall;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.policy.LoadedPolicies;
import dev.syncgc.policy.PolicyStore;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The GarbageCollectionPolicies in force, read once as {@code kubectl syncgc} reads them, and what
 * could not be read: an object whose propagation a policy may decide is not guessed at then.
 */
final class PoliciesInForce {
  final PolicyStore store;
  /** Why the policies could not be read; null when they could (or none can exist: no CRD). */
  private final String unreadable;
  private final Map<String, String> namespacesUnread = new HashMap<>();

  private PoliciesInForce(KubernetesClient client) {
    Map<String, Map<String, String>> labels = new HashMap<>();
    store = new PolicyStore(ns -> labels.computeIfAbsent(ns, n -> labels(client, n)), List::of, () -> { });
    LoadedPolicies loaded = LoadedPolicies.load(client); // an invalid policy is used by no one
    loaded.valid().forEach(store::put);
    unreadable = loaded.unreadable();
  }

  static PoliciesInForce load(KubernetesClient client) {
    return new PoliciesInForce(client);
  }

  private Map<String, String> labels(KubernetesClient client, String namespace) {
    try {
      Namespace ns = client.namespaces().withName(namespace).get();
      return ns == null || ns.getMetadata().getLabels() == null ? Map.of() : ns.getMetadata().getLabels();
    } catch (KubernetesClientException e) {
      namespacesUnread.put(namespace, "the labels of namespace " + namespace + " could not be read (HTTP "
          + e.getCode() + ")");
      return Map.of();
    }
  }

  /**
   * Why the propagation in force of the object cannot be worked out (a policy may decide it, and
   * the policies or its namespace's labels could not be read), or null.
   */
  String undecided(ObjectMetadata object) {
    DeletionSettings own = DeletionSettings.fromAnnotations(object.annotations());
    boolean ownPropagation = own.propagation().isPresent()
        && own.invalid().stream().noneMatch(i -> i.annotation().equals(Names.PROPAGATION));
    if (ownPropagation) {
      return null;
    }
    if (unreadable != null) {
      return unreadable;
    }
    store.settingsOf(object); // reads the namespace's labels if a policy selects by them
    return object.ref().namespaced() ? namespacesUnread.get(object.ref().namespace()) : null;
  }
}
