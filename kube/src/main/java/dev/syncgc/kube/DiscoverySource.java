package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;

/** What discovery reads: the API server, or a stand-in in tests. */
public interface DiscoverySource {
  List<APIGroup> groups();

  /** @throws KubernetesClientException when the group-version cannot be read */
  APIResourceList resources(String groupVersion);

  /**
   * Every group, version, resource and verb served, in one answer (aggregated discovery, v1.30+), so
   * that a kind added to a known group-version is noticed; null where the API server offers none.
   */
  default String servedDigest() {
    return null;
  }

  /** The API server's discovery endpoints, through the client. */
  static DiscoverySource of(KubernetesClient client) {
    return new DiscoverySource() {
      @Override
      public List<APIGroup> groups() {
        return client.getApiGroups().getGroups();
      }

      @Override
      public APIResourceList resources(String groupVersion) {
        return client.getApiResources(groupVersion);
      }

      @Override
      public String servedDigest() {
        return AggregatedDiscovery.digest(client);
      }
    };
  }
}
