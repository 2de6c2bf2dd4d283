package dev.syncgc.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Discovery in two requests, {@code /api} and {@code /apis} as {@code APIGroupDiscoveryList}
 * (aggregated discovery, {@code apidiscovery.k8s.io/v2}, served since Kubernetes 1.30), instead of one
 * request per group-version: every group's preferred version with its resources.
 */
final class AggregatedDiscovery {
  static final String ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
  private static final String KIND = "APIGroupDiscoveryList";

  private AggregatedDiscovery() {}

  /**
   * The resources of each group's preferred version, by group-version ({@code v1} first, as the server
   * lists them); empty when the server does not serve aggregated discovery or refuses it, so that
   * discovery group by group says why. A server that does not answer at all is a failure at once (not
   * twice the time out). A version the server marks stale (an aggregated API that is down) is left
   * out, as a group-version that cannot be read is.
   */
  static Optional<Map<String, List<APIResource>>> read(Cluster cluster) {
    List<JsonNode> lists;
    try {
      lists = Parallel.map(List.of("api", "apis"), path -> fetch(cluster, path));
    } catch (KubernetesClientException e) {
      throw cluster.failure("discovery", e);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    Map<String, List<APIResource>> byGroupVersion = new LinkedHashMap<>();
    for (JsonNode list : lists) {
      if (list == null || !KIND.equals(list.path("kind").asText())) {
        return Optional.empty();
      }
      for (JsonNode group : list.path("items")) {
        JsonNode preferred = group.path("versions").path(0); // the server lists the preferred version first
        if (preferred.isMissingNode() || "Stale".equals(preferred.path("freshness").asText())) {
          continue;
        }
        String name = group.path("metadata").path("name").asText("");
        String version = preferred.path("version").asText();
        byGroupVersion.put(name.isEmpty() ? version : name + "/" + version, resources(preferred.path("resources")));
      }
    }
    return Optional.of(byGroupVersion);
  }

  private static List<APIResource> resources(JsonNode resources) {
    List<APIResource> out = new ArrayList<>();
    for (JsonNode r : resources) {
      out.add(new APIResourceBuilder().withName(r.path("resource").asText())
          .withKind(r.path("responseKind").path("kind").asText())
          .withNamespaced("Namespaced".equals(r.path("scope").asText()))
          .withVerbs(strings(r.path("verbs"))).withShortNames(strings(r.path("shortNames"))).build());
    }
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(s -> out.add(s.asText()));
    return out;
  }

  /** The document at {@code path}, null when the server answered anything but 200. */
  private static JsonNode fetch(Cluster cluster, String path) {
    HttpClient http = cluster.client.getHttpClient();
    var request = http.newHttpRequestBuilder().uri(cluster.client.getMasterUrl() + path).header("Accept", ACCEPT).build();
    int timeout = cluster.client.getConfiguration().getRequestTimeout();
    try {
      var answer = http.sendAsync(request, String.class);
      HttpResponse<String> response = timeout > 0 ? answer.get(timeout, TimeUnit.MILLISECONDS) : answer.get();
      return response.code() == 200
          ? cluster.client.getKubernetesSerialization().unmarshal(response.body(), JsonNode.class) : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException("no answer to GET " + path, e.getCause() != null ? e.getCause() : e);
    }
  }
}
