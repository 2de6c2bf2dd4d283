package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;

/**
 * Patches of labels, annotations and finalizers that, like a careful controller, drop no concurrent
 * change.
 */
public final class MetadataPatches {
  private MetadataPatches() {}

  /** Sets an annotation (JSON merge patch: touches nothing else). */
  public static void annotate(Resource<? extends HasMetadata> object, String key, String value) {
    object.patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"annotations\":{" + quote(key) + ":" + quote(value) + "}}}");
  }

  /** Sets a label (JSON merge patch: touches nothing else). */
  public static void label(Resource<? extends HasMetadata> object, String key, String value) {
    object.patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{" + quote(key) + ":" + quote(value) + "}}}");
  }

  /** Removes an annotation (JSON merge patch with null). */
  public static void removeAnnotation(Resource<? extends HasMetadata> object, String key) {
    object.patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"annotations\":{" + quote(key) + ":null}}}");
  }

  /**
   * Removes one finalizer with a JSON patch that first tests the entry it removes; retried on a
   * concurrent change (the operator may patch the object meanwhile). Does nothing if it is absent.
   */
  public static void removeFinalizer(Resource<? extends HasMetadata> object, String finalizer) {
    await("finalizer " + finalizer + " removed by JSON patch").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> {
          HasMetadata current = object.get();
          List<String> finalizers = current == null ? null : current.getMetadata().getFinalizers();
          int index = finalizers == null ? -1 : finalizers.indexOf(finalizer);
          if (index < 0) {
            return true;
          }
          String path = "/metadata/finalizers/" + index;
          try {
            object.patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"test\",\"path\":\"" + path
                + "\",\"value\":" + quote(finalizer) + "},{\"op\":\"remove\",\"path\":\"" + path + "\"}]");
            return true;
          } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
              return true;
            }
            if (e.getCode() == 409 || e.getCode() == 422) {
              return false; // the list changed under us: read again
            }
            throw e;
          }
        });
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
