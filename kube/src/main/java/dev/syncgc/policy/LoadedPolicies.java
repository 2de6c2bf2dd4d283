package dev.syncgc.policy;

import dev.syncgc.core.policy.Policy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads every GarbageCollectionPolicy in one LIST and translates each: one rule for the operator's
 * start, the uninstall ({@code release}) and {@code kubectl syncgc}. A policy that is invalid is
 * never used, by anyone, and is named with why. Policies that cannot be read at all (no right to
 * list them, an API server error) leave every object's settings unknown: no one decides from
 * annotations alone as if there were no policy. The operator does not start, the uninstall refuses
 * to let go of objects, the plugin says what it shows is from annotations only. A cluster without
 * the policy CRD (404) has no policies: that is known, not unread.
 *
 * @param valid the policies that can be used
 * @param invalid the name of each invalid policy, with why
 * @param unreadable why the policies could not be read; null when they could (or none can exist)
 */
public record LoadedPolicies(List<Policy> valid, Map<String, String> invalid, String unreadable) {

  public LoadedPolicies {
    valid = List.copyOf(valid);
    invalid = Map.copyOf(invalid);
  }

  /** The policies of one LIST. */
  public static LoadedPolicies load(KubernetesClient client) {
    List<GarbageCollectionPolicy> listed;
    try {
      listed = client.resources(GarbageCollectionPolicy.class).list().getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return new LoadedPolicies(List.of(), Map.of(), null);
      }
      return new LoadedPolicies(List.of(), Map.of(), "GarbageCollectionPolicies could not be listed ("
          + (e.getCode() == 403 ? "forbidden" : e.getCode() > 0 ? "HTTP " + e.getCode() : "no answer") + ")");
    }
    return translate(listed);
  }

  /** The policies among {@code resources} that can be used, and the others with why. */
  static LoadedPolicies translate(List<GarbageCollectionPolicy> resources) {
    List<Policy> valid = new ArrayList<>();
    Map<String, String> invalid = new LinkedHashMap<>();
    for (GarbageCollectionPolicy resource : resources) {
      try {
        valid.add(PolicyTranslator.translate(resource));
      } catch (PolicyTranslator.InvalidPolicy e) {
        invalid.put(resource.getMetadata().getName(), e.getMessage());
      }
    }
    return new LoadedPolicies(valid, invalid, null);
  }

  /** The policies, or an exception saying why they could not be read. */
  public List<Policy> validOrThrow() {
    if (unreadable != null) {
      throw new IllegalStateException(unreadable);
    }
    return valid;
  }
}
