package dev.syncgc.e2e.support;

import org.awaitility.Awaitility;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** The syncgc finalizer, and waiting for finalizers to appear on or leave an object. */
public final class Finalizers {
  public static final String SYNCGC = "syncgc.dev/GarbageCollectionInProgress";

  private Finalizers() {}

  public static boolean has(HasMetadata object, String finalizer) {
    return object != null && object.getMetadata().getFinalizers() != null
        && object.getMetadata().getFinalizers().contains(finalizer);
  }

  /**
   * Waits until the object (read by {@code get}; null when gone) carries {@code finalizer}, or no
   * longer does, and returns the object as last read.
   */
  public static <T extends HasMetadata> T await(Supplier<T> get, String finalizer, boolean present,
      Duration deadline) {
    AtomicReference<T> last = new AtomicReference<>();
    try {
      Awaitility.await("finalizer " + finalizer + (present ? " added" : " removed")).atMost(deadline)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            T object = get.get();
            last.set(object);
            if (object == null) {
              throw new AssertionError("object is gone");
            }
            return has(object, finalizer) == present;
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

  /** Waits (10 s, twice SPEC.md's p99 of 2 s plus slack) for the syncgc finalizer. */
  public static <T extends HasMetadata> T awaitSyncgc(Supplier<T> get) {
    return await(get, SYNCGC, true, Duration.ofSeconds(10));
  }
}
