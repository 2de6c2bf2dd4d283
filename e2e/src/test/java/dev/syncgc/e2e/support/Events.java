package dev.syncgc.e2e.support;

import org.awaitility.Awaitility;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The core/v1 Events syncgc records (source component {@code syncgc}). Events on a namespaced
 * object live in the object's namespace, those on a cluster-scoped object in {@code default}.
 */
public final class Events {
  public static final String COMPONENT = "syncgc";
  public static final Duration DEADLINE = Duration.ofSeconds(60);

  private Events() {}

  /** The syncgc Events on the object with this uid, oldest first. */
  public static List<Event> on(KubernetesClient client, String namespace, String uid) {
    return client.v1().events().inNamespace(namespace).withField("involvedObject.uid", uid).list()
        .getItems().stream()
        .filter(Events::fromSyncgc)
        .sorted(Comparator.comparing(e -> e.getMetadata().getCreationTimestamp()))
        .toList();
  }

  /** The syncgc Events with this reason on any object of the namespace. */
  public static List<Event> withReason(KubernetesClient client, String namespace, String reason) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(Events::fromSyncgc)
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  /** Waits (up to {@link #DEADLINE}) for a syncgc Event with this reason on the object; returns it. */
  public static Event await(KubernetesClient client, String namespace, String uid, String reason) {
    return await(client, namespace, uid, reason, e -> true, DEADLINE);
  }

  /** Waits for a syncgc Event with this reason on the object that also matches {@code matching}. */
  public static Event await(KubernetesClient client, String namespace, String uid, String reason,
      Predicate<Event> matching, Duration deadline) {
    AtomicReference<Event> found = new AtomicReference<>();
    AtomicReference<List<Event>> last = new AtomicReference<>(List.of());
    try {
      Awaitility.await("Event " + reason + " on uid " + uid).atMost(deadline)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> {
            List<Event> events = on(client, namespace, uid);
            last.set(events);
            events.stream().filter(e -> reason.equals(e.getReason())).filter(matching).findFirst()
                .ifPresent(found::set);
            return found.get() != null;
          });
    } catch (RuntimeException e) {
      throw new AssertionError("no matching Event " + reason + " on uid " + uid + " in " + namespace
          + " within " + deadline + "; syncgc Events on it:\n" + describe(last.get()), e);
    }
    return found.get();
  }

  /** One line per Event: type, reason, message. */
  public static String describe(List<Event> events) {
    if (events.isEmpty()) {
      return "  (none)";
    }
    return events.stream()
        .map(e -> "  " + e.getType() + " " + e.getReason() + ": " + e.getMessage())
        .collect(Collectors.joining("\n"));
  }

  private static boolean fromSyncgc(Event e) {
    return e.getSource() != null && COMPONENT.equals(e.getSource().getComponent());
  }
}
