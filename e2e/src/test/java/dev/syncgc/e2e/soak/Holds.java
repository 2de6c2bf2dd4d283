package dev.syncgc.e2e.soak;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * "Another controller": objects carrying {@link SoakObject#HOLD} lose it {@code holdMillis} after
 * the soak first sees them marked deleted, as a controller finishing its cleanup would. Only the soak
 * removes that finalizer: a held object found without it, or gone, before the soak released it was
 * released by someone else (invariant 3), which {@link #findings()} reports.
 */
final class Holds implements AutoCloseable {
  private final ObjectFactory objects;
  private final Map<SoakObject, Long> markedAt = new ConcurrentHashMap<>();
  private final Map<SoakObject, Boolean> held = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "soak-holds");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean releaseAll;
  /** Objects whose hold the soak has begun to release: from then on its absence is the soak's doing. */
  private final Set<SoakObject> releasing = ConcurrentHashMap.newKeySet();
  private final List<String> findings = new CopyOnWriteArrayList<>();

  Holds(ObjectFactory objects) {
    this.objects = objects;
    timer.scheduleWithFixedDelay(this::tick, 200, 200, TimeUnit.MILLISECONDS);
  }

  void watch(List<SoakObject> created) {
    created.stream().filter(SoakObject::held).forEach(o -> held.put(o, true));
  }

  /** While on, every hold is released as soon as its object is marked deleted (cleanup). */
  void releaseImmediately(boolean on) {
    releaseAll = on;
  }

  private void tick() {
    long now = System.nanoTime();
    for (SoakObject o : held.keySet()) {
      try {
        GenericKubernetesResource r = objects.current(o);
        if (r == null) {
          if (!releasing.contains(o)) {
            findings.add(o + " is gone while the soak, the controller whose finalizer " + SoakObject.HOLD
                + " held it, had not released it: someone else removed another controller's finalizer");
          }
          held.remove(o);
          continue;
        }
        if (r.getMetadata().getDeletionTimestamp() == null) {
          continue;
        }
        if (!releasing.contains(o) && !r.getMetadata().getFinalizers().contains(SoakObject.HOLD)) {
          findings.add(o + " lost the finalizer " + SoakObject.HOLD + " before the soak, whose finalizer it is,"
              + " released it; finalizers now " + r.getMetadata().getFinalizers());
          held.remove(o);
          continue;
        }
        long since = markedAt.computeIfAbsent(o, k -> now);
        if (releaseAll || now - since >= TimeUnit.MILLISECONDS.toNanos(o.holdMillis)) {
          releasing.add(o);
          List<String> finalizers = r.getMetadata().getFinalizers();
          int index = finalizers.indexOf(SoakObject.HOLD);
          if (index >= 0) {
            objects.resource(o).patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"test\",\"path\":\"/metadata/uid\","
                + "\"value\":\"" + o.uid + "\"},{\"op\":\"test\",\"path\":\"/metadata/finalizers/" + index
                + "\",\"value\":\"" + SoakObject.HOLD + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/"
                + index + "\"}]");
          }
          held.remove(o);
        }
      } catch (RuntimeException e) {
        // the API server restarting, or a concurrent change: next tick
      }
    }
  }

  /** Held objects whose hold went without the soak: what was found since the last call. */
  List<String> findings() {
    List<String> out = new ArrayList<>(findings);
    findings.removeAll(out);
    return out;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
