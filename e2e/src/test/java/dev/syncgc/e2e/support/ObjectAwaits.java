package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Reads and waits on the state of objects in the store: whether they are still there (same uid),
 * and whether they carry a finalizer. Objects are given either as read from the API server (any
 * kind, matched by uid) or as a {@link Supplier} that reads one (null when it is gone).
 */
public final class ObjectAwaits {
  /**
   * How long a test waits for the operator to add or remove its finalizer: SPEC.md's p99 of 2 s on
   * an idle cluster, twice, plus slack.
   */
  public static final Duration FINALIZER_DEADLINE = Duration.ofSeconds(10);
  /** A roomier wait for the finalizer, where it only sets a test up. */
  public static final Duration SETUP_DEADLINE = Duration.ofSeconds(30);

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

  /**
   * Waits until the object (read by {@code get}; null when gone, which fails at once) carries
   * {@code finalizer}, or no longer does, and returns the object as last read.
   */
  public static <T extends HasMetadata> T awaitFinalizer(Supplier<T> get, String finalizer,
      boolean present, Duration deadline) {
    AtomicReference<T> last = new AtomicReference<>();
    try {
      await("finalizer " + finalizer + (present ? " added" : " removed")).atMost(deadline)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> {
            T object = get.get();
            last.set(object);
            if (object == null) {
              throw new AssertionError("object is gone");
            }
            return hasFinalizer(object, finalizer) == present;
          });
    } catch (RuntimeException | AssertionError e) {
      T object = last.get();
      throw new AssertionError("finalizer " + finalizer + " not " + (present ? "added to " : "removed from ")
          + (object == null ? "the object (gone)" : object.getKind() + " " + object.getMetadata().getName()
              + " within " + deadline + "; finalizers " + object.getMetadata().getFinalizers()
              + ", annotations " + object.getMetadata().getAnnotations()), e);
    }
    return last.get();
  }

  /** {@link #awaitFinalizer(Supplier, String, boolean, Duration)} for an object as read before. */
  public static GenericKubernetesResource awaitFinalizer(KubernetesClient client, HasMetadata object,
      String finalizer, boolean present, Duration deadline) {
    return awaitFinalizer(() -> current(client, object), finalizer, present, deadline);
  }

  /** Waits (up to {@link #FINALIZER_DEADLINE}) for the syncgc finalizer on the object. */
  public static <T extends HasMetadata> T awaitSyncgcFinalizer(Supplier<T> get) {
    return awaitFinalizer(get, SpecNames.FINALIZER, true, FINALIZER_DEADLINE);
  }

  /** Waits for the syncgc finalizer on {@code object}; returns it as stored then. */
  public static GenericKubernetesResource awaitSyncgcFinalizer(KubernetesClient client,
      HasMetadata object, Duration deadline) {
    return awaitFinalizer(client, object, SpecNames.FINALIZER, true, deadline);
  }

  /** Waits until {@code object} (this uid) is gone from the store. */
  /** Waits until the Widget {@code name} in {@code namespace} is marked as deleted (a deletionTimestamp). */
  public static void awaitWidgetMarkedDeleted(KubernetesClient client, String namespace, String name) {
    org.awaitility.Awaitility.await(name + " marked deleted").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200)).until(() -> {
          GenericKubernetesResource w = Widgets.widget(client, namespace, name).get();
          return w != null && w.getMetadata().getDeletionTimestamp() != null;
        });
  }

  public static void awaitGone(KubernetesClient client, HasMetadata object, Duration deadline) {
    await(object.getKind() + " " + object.getMetadata().getName() + " gone").atMost(deadline)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !exists(client, object));
  }

  /** Waits until every one of {@code objects} is gone. */
  public static void awaitAllGone(KubernetesClient client, List<? extends HasMetadata> objects,
      Duration deadline) {
    await(objects.size() + " objects gone").atMost(deadline).pollInterval(Duration.ofMillis(200))
        .until(() -> objects.stream().noneMatch(o -> exists(client, o)));
  }
}
