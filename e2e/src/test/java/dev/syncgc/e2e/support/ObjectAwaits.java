package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Waits on the state of objects in the store, by kind, namespace and name (and uid). */
public final class ObjectAwaits {
  public static final Duration FINALIZER_DEADLINE = Duration.ofSeconds(30);

  private ObjectAwaits() {}

  /** The object as stored now, if it is still the same object (same uid); else null. */
  public static GenericKubernetesResource current(KubernetesClient client, HasMetadata object) {
    GenericKubernetesResource now = Widgets.reload(client, object);
    return now != null && Objects.equals(now.getMetadata().getUid(), object.getMetadata().getUid())
        ? now : null;
  }

  public static boolean exists(KubernetesClient client, HasMetadata object) {
    return current(client, object) != null;
  }

  public static boolean hasFinalizer(HasMetadata object, String finalizer) {
    return object != null && object.getMetadata().getFinalizers() != null
        && object.getMetadata().getFinalizers().contains(finalizer);
  }

  /** Waits until the operator has put its finalizer on {@code object}; returns it as stored then. */
  public static GenericKubernetesResource awaitSyncgcFinalizer(KubernetesClient client, HasMetadata object) {
    await("finalizer on " + object.getKind() + " " + object.getMetadata().getName())
        .atMost(FINALIZER_DEADLINE).pollInterval(Duration.ofMillis(50))
        .until(() -> hasFinalizer(current(client, object), SpecNames.FINALIZER));
    return current(client, object);
  }

  /** Waits until {@code object} (this uid) is gone from the store. */
  public static void awaitGone(KubernetesClient client, HasMetadata object, Duration deadline) {
    await(object.getKind() + " " + object.getMetadata().getName() + " gone").atMost(deadline)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !exists(client, object));
  }

  /** Waits until every one of {@code objects} is gone; the failure names those left. */
  public static void awaitAllGone(KubernetesClient client, List<? extends HasMetadata> objects,
      Duration deadline) {
    await(objects.size() + " objects gone").atMost(deadline).pollInterval(Duration.ofMillis(200))
        .until(() -> objects.stream().noneMatch(o -> exists(client, o)));
  }

  /** Removes {@code finalizer} from the object if it is still there (cleanup). */
  public static void removeFinalizer(KubernetesClient client, HasMetadata object, String finalizer) {
    for (int attempt = 0; attempt < 10; attempt++) {
      GenericKubernetesResource now = current(client, object);
      if (now == null || !hasFinalizer(now, finalizer)) {
        return;
      }
      now.getMetadata().getFinalizers().remove(finalizer);
      try {
        var resources = client.genericKubernetesResources(now.getApiVersion(), now.getKind());
        (now.getMetadata().getNamespace() == null ? resources.resource(now)
            : resources.inNamespace(now.getMetadata().getNamespace()).resource(now)).update();
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() == 404) {
          return;
        }
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    throw new AssertionError("could not remove finalizer " + finalizer + " from "
        + object.getMetadata().getName());
  }
}
