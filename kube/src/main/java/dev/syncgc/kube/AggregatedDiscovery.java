package dev.syncgc.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The API server's aggregated discovery (KEP-3352, GA in v1.30): every group's versions, resources and
 * verbs in one answer from {@code /apis}. Fabric8 7 reads discovery a group-version at a time; syncgc
 * uses this answer only to notice that what is served changed (a kind added to a group-version already
 * known, which the list of group-versions does not show), then reads discovery as before.
 */
final class AggregatedDiscovery {
  static final String ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private AggregatedDiscovery() {}

  /** Every group/version/resource with its verbs, sorted and joined; null if the API server has no aggregated discovery. */
  static String digest(KubernetesClient client) {
    try {
      String base = client.getMasterUrl().toString().replaceAll("/$", "");
      HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(base + "/apis")
          .setHeader("Accept", ACCEPT).build();
      HttpResponse<String> response = client.getHttpClient().sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
      return response.code() == 200 ? digest(response.body()) : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null; // the group-versions alone are compared then, as before
    }
  }

  static String digest(String body) throws java.io.IOException {
    JsonNode list = JSON.readTree(body);
    if (!"APIGroupDiscoveryList".equals(list.path("kind").asText())) {
      return null;
    }
    TreeSet<String> served = new TreeSet<>();
    for (JsonNode group : list.path("items")) {
      String name = group.path("metadata").path("name").asText("");
      for (JsonNode version : group.path("versions")) {
        for (JsonNode resource : version.path("resources")) {
          served.add(name + "/" + version.path("version").asText() + "/" + resource.path("resource").asText() + " "
              + resource.path("verbs"));
        }
      }
    }
    return String.join("\n", served);
  }
}
