package dev.syncgc.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's writes. DELETE goes through Fabric8's HTTP client with the same DeleteOptions
 * syncgc sends (uid precondition, propagation policy), which Fabric8's DSL cannot express.
 * Transient failures (no answer, 429, 5xx) are retried a few times.
 */
final class Api {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ATTEMPTS = 6;
  private final KubernetesClient client;
  private final HttpClient http;
  private final String base;

  Api(KubernetesClient client) {
    this.client = client;
    this.http = client.getHttpClient();
    String master = client.getMasterUrl().toString();
    this.base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
  }

  KubernetesClient client() {
    return client;
  }

  /** Creates the object and returns its uid (an object left by a retried create counts as created). */
  String create(GenericKubernetesResource item) {
    var resources = client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(item.getMetadata().getNamespace());
    for (int attempt = 1; ; attempt++) {
      try {
        return resources.resource(item).create().getMetadata().getUid();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          GenericKubernetesResource existing = resources.withName(item.getMetadata().getName()).get();
          if (existing != null) {
            return existing.getMetadata().getUid();
          }
        }
        if (attempt >= ATTEMPTS || !transientCode(e.getCode())) {
          throw e;
        }
        backoff(attempt);
      }
    }
  }

  /** DELETE with a uid precondition; 404 (already gone) counts as done. Returns the HTTP code. */
  int delete(String namespace, String name, String uid, String propagationPolicy) {
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("apiVersion", "v1");
    options.put("kind", "DeleteOptions");
    options.put("preconditions", Map.of("uid", uid));
    options.put("propagationPolicy", propagationPolicy);
    String body;
    try {
      body = JSON.writeValueAsString(options);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    String uri = base + "/apis/" + BenchCrd.API_VERSION + "/namespaces/" + namespace + "/" + BenchCrd.PLURAL + "/" + name;
    for (int attempt = 1; ; attempt++) {
      int code;
      String message;
      try {
        HttpResponse<String> response = http.sendAsync(
            http.newHttpRequestBuilder().uri(uri).method("DELETE", "application/json", body).build(), String.class)
            .get(120, TimeUnit.SECONDS);
        code = response.code();
        message = response.body();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      } catch (Exception e) {
        code = 0;
        message = String.valueOf(e);
      }
      if (code >= 200 && code < 300 || code == 404) {
        return code;
      }
      if (attempt >= ATTEMPTS || !transientCode(code)) {
        throw new IllegalStateException("DELETE " + namespace + "/" + name + ": HTTP " + code + " " + message);
      }
      backoff(attempt);
    }
  }

  private static boolean transientCode(int code) {
    return code == 0 || code == 429 || code >= 500;
  }

  private static void backoff(int attempt) {
    try {
      Thread.sleep(100L << Math.min(attempt, 5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }
}
