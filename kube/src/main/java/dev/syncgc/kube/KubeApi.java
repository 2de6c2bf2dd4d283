package dev.syncgc.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP calls syncgc makes: metadata-only LISTs and watches, GETs, and the DELETEs and patches
 * that {@link ObjectWrites} builds. Fabric8's DSL cannot send a uid precondition nor ask for
 * metadata only, so these go through its HTTP client (same authentication, same TLS). All calls
 * pass the client-side rate limit (unless it is off), carry the request timeout, are counted by
 * verb and code, and are sent again on 429 after the server's Retry-After.
 */
public final class KubeApi {
  public static final String JSON_PATCH = "application/json-patch+json";
  public static final String MERGE_PATCH = "application/merge-patch+json";
  /** A list as PartialObjectMetadataList, else (an API that cannot convert) as it is. */
  private static final String METADATA_ONLY =
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
  /** One object (a watch event's, a write's answer) as PartialObjectMetadata, else as it is. */
  private static final String METADATA_ONLY_OBJECT =
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** No check before sending. */
  private static final Supplier<String> ALWAYS = () -> null;
  private static final Logger log = LoggerFactory.getLogger(KubeApi.class);

  private final KubernetesClient client;
  private final HttpClient http;
  private final String base;
  private final RateLimiter limiter;
  private final CallCounts metrics;
  /**
   * How long a call waits for its answer, then gives up and cancels it: longer than the API server's
   * own limit on a request (kube-apiserver's {@code --request-timeout}, 60 s), so that whatever it
   * answers, a conversion or admission webhook's failure in its own words included, is read; an API
   * server that accepts the connection and never answers holds a worker no longer than this.
   */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(70);
  private final Duration requestTimeout;

  public KubeApi(KubernetesClient client, RateLimiter limiter, CallCounts metrics) {
    this(client, limiter, metrics, REQUEST_TIMEOUT);
  }

  /** @param requestTimeout how long a call waits for its answer ({@link #REQUEST_TIMEOUT}) */
  public KubeApi(KubernetesClient client, RateLimiter limiter, CallCounts metrics, Duration requestTimeout) {
    this.client = client;
    this.http = client.getHttpClient();
    String master = client.getMasterUrl().toString();
    this.base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    this.limiter = limiter;
    this.metrics = metrics;
    this.requestTimeout = requestTimeout;
  }

  /**
   * A DELETE with these DeleteOptions (built by {@link ObjectWrites}, with its preconditions), sent
   * only if {@code stopped} finds no reason against it just before it goes (after the rate limiter's
   * wait, and again before a retry after 429); else {@link ApiResult#notSent}. The options go as a
   * String: a body of fixed length with {@code Content-Length}, never streamed, so the API server reads
   * them whole or fails the request unexecuted (DeleteOptionsSentTest).
   */
  public ApiResult delete(TrackedKind kind, ObjectRef ref, String deleteOptions, Supplier<String> stopped) {
    return send("delete", http.newHttpRequestBuilder()
        .uri(base + kind.path(ref.namespace(), ref.name()))
        .method("DELETE", "application/json", deleteOptions).setHeader("Accept", METADATA_ONLY_OBJECT), stopped);
  }

  public ApiResult patch(TrackedKind kind, ObjectRef ref, String contentType, String patch) {
    return patch(kind, ref, contentType, patch, ALWAYS);
  }

  /** A patch sent only if {@code stopped} finds no reason against it just before it goes (as for DELETE). */
  public ApiResult patch(TrackedKind kind, ObjectRef ref, String contentType, String patch, Supplier<String> stopped) {
    return send("patch", http.newHttpRequestBuilder()
        .uri(base + kind.path(ref.namespace(), ref.name()))
        .method("PATCH", contentType, patch).setHeader("Accept", METADATA_ONLY_OBJECT), stopped);
  }

  /**
   * A POST of {@code json} (an object, such as an Event) to the collection at {@code path} (from
   * {@code /api} or {@code /apis}); its answer read as metadata only.
   */
  public ApiResult create(String path, String json) {
    return send("create", http.newHttpRequestBuilder().uri(base + path)
        .method("POST", "application/json", json).setHeader("Accept", METADATA_ONLY_OBJECT));
  }

  /** A PATCH of the object at {@code path} (from {@code /api} or {@code /apis}, such as an Event); its answer as metadata only. */
  public ApiResult patch(String path, String contentType, String patch) {
    return send("patch", http.newHttpRequestBuilder().uri(base + path)
        .method("PATCH", contentType, patch).setHeader("Accept", METADATA_ONLY_OBJECT));
  }

  /** GET of one object; {@link Result#uid()} tells which object answered. */
  public ApiResult get(TrackedKind kind, String namespace, String name) {
    return send("get", http.newHttpRequestBuilder().uri(base + kind.path(namespace, name)));
  }

  /**
   * A consistent LIST of every object of a kind, in one namespace or (null) in all, page by page,
   * metadata only: the API server sends a PartialObjectMetadataList (an API that cannot sends the whole
   * objects), so spec, status and data (of Secrets, say) are never read.
   *
   * @return the resourceVersion the list was read at
   */
  public long listAllMetadata(TrackedKind kind, String namespace, Consumer<GenericKubernetesResource> each) {
    String continueToken = null;
    long listedAt = 0;
    do {
      GenericKubernetesResourceList page = list(kind, namespace, continueToken);
      if (listedAt == 0) {
        listedAt = MetadataDecoder.version(page.getMetadata().getResourceVersion());
      }
      if (page.getItems() != null) { // a PartialObjectMetadataList without items has none
        page.getItems().forEach(each);
      }
      continueToken = page.getMetadata().getContinue();
    } while (continueToken != null && !continueToken.isEmpty());
    return listedAt;
  }

  /**
   * A consistent metadata-only LIST, page by page, each item decoded into what the graph keeps as it is
   * read (never a whole object); fails with the API server's code.
   *
   * @return the resourceVersion the list was read at
   */
  public long listMetadata(TrackedKind kind, String namespace, Consumer<ObjectMetadata> each) {
    String continueToken = null;
    long listedAt = 0;
    do {
      ApiResult r = send("list", pageRequest(kind, namespace, continueToken).setHeader("Accept", METADATA_ONLY));
      if (!r.ok()) {
        throw new KubernetesClientException(r.message(), r.code(), null);
      }
      MetadataDecoder.Page page = MetadataDecoder.page(kind, r.body().getBytes(StandardCharsets.UTF_8), each);
      listedAt = listedAt == 0 ? page.resourceVersion() : listedAt;
      continueToken = page.continueToken();
    } while (continueToken != null);
    return listedAt;
  }

  /**
   * Opens a metadata-only watch ({@code query} holds watch=true and the rest) whose bytes go to
   * {@code consumer} as they arrive. Rate limited only when it lists ({@code lists}: a watch list
   * takes a LIST's place); otherwise it is one long request, and its LIST was.
   */
  public CompletableFuture<HttpResponse<AsyncBody>> watchMetadata(TrackedKind kind, String namespace, String query,
      boolean lists, Duration timeout, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    if (lists) {
      limiter.acquire();
    }
    HttpRequest request = http.newHttpRequestBuilder()
        .uri(base + kind.collectionPath(kind.namespaced() ? namespace : null) + query)
        .setHeader("Accept", METADATA_ONLY_OBJECT).forStreaming()
        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build();
    long sent = System.nanoTime();
    return http.consumeBytes(request, consumer).whenComplete((response, failure) -> {
      metrics.apiLatency("watch", Duration.ofNanos(System.nanoTime() - sent));
      metrics.apiRequest("watch", response == null ? 0 : response.code());
    });
  }

  private GenericKubernetesResourceList list(TrackedKind kind, String namespace, String continueToken) {
    ApiResult r = send("list", pageRequest(kind, namespace, continueToken).setHeader("Accept", METADATA_ONLY));
    if (!r.ok()) {
      throw new KubernetesClientException(r.message(), r.code(), null);
    }
    return client.getKubernetesSerialization().unmarshal(r.body(), GenericKubernetesResourceList.class);
  }

  private HttpRequest.Builder pageRequest(TrackedKind kind, String namespace, String continueToken) {
    String query = "?limit=500" + (continueToken == null || continueToken.isEmpty() ? ""
        : "&continue=" + URLEncoder.encode(continueToken, StandardCharsets.UTF_8));
    return http.newHttpRequestBuilder().uri(base + kind.collectionPath(kind.namespaced() ? namespace : null) + query);
  }

  /**
   * Sends a request, counts its answer, and sends it again while the API server answers 429 (see
   * {@link TooManyRequests}): the wait holds only the calling thread; other workers go on.
   */
  private ApiResult send(String verb, HttpRequest.Builder builder) {
    return send(verb, builder, ALWAYS);
  }

  private ApiResult send(String verb, HttpRequest.Builder builder, Supplier<String> stopped) {
    HttpRequest request = builder.timeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).build();
    Duration waited = Duration.ZERO;
    for (int retry = 1; ; retry++) {
      limiter.acquire();
      String why = stopped.get(); // the facts as they are now, not as they were when the call was decided
      if (why != null) {
        metrics.callNotSent(verb);
        return ApiResult.notSent(why);
      }
      HttpResponse<String> response;
      long sent = System.nanoTime();
      CompletableFuture<HttpResponse<String>> answer = http.sendAsync(request, String.class);
      try {
        // the request's timeout covers the answer's headers; this, a body that never ends
        response = answer.get(requestTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        answer.cancel(true);
        Thread.currentThread().interrupt();
        return new ApiResult(0, "interrupted");
      } catch (ExecutionException | TimeoutException e) {
        answer.cancel(true);
        metrics.apiLatency(verb, Duration.ofNanos(System.nanoTime() - sent));
        metrics.apiRequest(verb, 0);
        return new ApiResult(0, String.valueOf(e.getCause() == null ? e : e.getCause()));
      }
      metrics.apiLatency(verb, Duration.ofNanos(System.nanoTime() - sent));
      metrics.apiRequest(verb, response.code());
      Duration wait = response.code() == TooManyRequests.CODE
          ? TooManyRequests.waitBefore(retry, response.header("Retry-After"), waited)
          : null;
      if (wait == null) {
        if (response.code() == TooManyRequests.CODE) {
          log.warn("API server still throttling after {} retries verb={} uri={}; the work queue retries later",
              retry - 1, verb, request.uri());
        }
        return new ApiResult(response.code(), response.body());
      }
      log.debug("429 verb={} uri={} retry={} in {} ms", verb, request.uri(), retry, wait.toMillis());
      try {
        Thread.sleep(wait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new ApiResult(0, "interrupted");
      }
      waited = waited.plus(wait);
    }
  }

  public static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }
}
