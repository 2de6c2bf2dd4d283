package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.TestCrds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What is left of a {@link DifferentialWorld} on one side: every object and co-owner still in the store
 * (ClusterWidgets included), by its name in the world, with the owners it names and whether it is being
 * deleted ({@code waiting}: held by {@code foregroundDeletion}, the built-in collector waiting for its
 * dependents; {@code deleting}: held by another finalizer).
 */
final class Survivors {
  private Survivors() {}

  /** One object left. */
  record Left(List<String> owners, String phase) {
    @Override
    public String toString() {
      return owners + (phase.isEmpty() ? "" : " " + phase);
    }
  }

  static Map<String, Left> of(KubernetesClient client, String ns) {
    Map<String, Left> left = new TreeMap<>();
    for (GenericKubernetesResource w : TestCrds.widgets(client).inNamespace(ns).list().getItems()) {
      left.put(w.getMetadata().getName(), left(w, ns));
    }
    for (GenericKubernetesResource w : TestCrds.clusterWidgets(client).list().getItems()) {
      if (w.getMetadata().getName().startsWith(ns + "-")) {
        left.put(w.getMetadata().getName().substring(ns.length() + 1), left(w, ns));
      }
    }
    return left;
  }

  private static Left left(GenericKubernetesResource w, String ns) {
    var m = w.getMetadata();
    List<String> owners = m.getOwnerReferences().stream().map(r -> r.getName().replace(ns + "-", "")).sorted().toList();
    String phase = m.getDeletionTimestamp() == null ? ""
        : m.getFinalizers().contains("foregroundDeletion") ? "waiting" : "deleting";
    return new Left(owners, phase);
  }

  /**
   * Waits until the built-in side is done: its root gone (or, where the world sticks, never to go) and
   * nothing changed for {@code quiet}; returns what is left then.
   */
  static Map<String, Left> settle(KubernetesClient client, String ns, DifferentialWorld world, Duration quiet) {
    Map<String, Left>[] last = new Map[] {of(client, ns)};
    Instant[] since = {Instant.now()};
    await("the built-in side settles in " + ns).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          Map<String, Left> now = of(client, ns);
          if (!now.equals(last[0])) {
            last[0] = now;
            since[0] = Instant.now();
            return false;
          }
          boolean done = !now.containsKey("o0") || world.sticks();
          return done && Duration.between(since[0], Instant.now()).compareTo(quiet) >= 0;
        });
    return last[0];
  }

  /**
   * The same with references to owners that are not left dropped: a dangling reference is removed by
   * the built-in collector at its own pace on both sides (or never, from an object it cannot delete).
   */
  static Map<String, Left> compared(Map<String, Left> left) {
    Map<String, Left> out = new TreeMap<>();
    left.forEach((name, l) -> out.put(name, new Left(l.owners().stream().filter(left::containsKey).toList(), l.phase())));
    return out;
  }

  /** The world's objects (the root aside) that are not left, in order: the usage edges join these. */
  static List<String> deleted(DifferentialWorld world, Map<String, Left> left) {
    List<String> out = new ArrayList<>();
    for (String name : world.owners().keySet()) {
      if (!name.equals("o0") && !left.containsKey(name)) {
        out.add(name);
      }
    }
    return out;
  }
}
