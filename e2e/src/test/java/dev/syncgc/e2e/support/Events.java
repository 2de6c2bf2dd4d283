package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * The core/v1 Events recorded about one object, found by {@code involvedObject.uid} in the object's
 * namespace ({@code default} for cluster-scoped objects); they outlive the object. Those from syncgc
 * carry the source component {@value SpecNames#COMPONENT}.
 */
public final class Events {
  /** How long {@link #await(KubernetesClient, HasMetadata, String)} waits. */
  public static final Duration DEADLINE = Duration.ofSeconds(60);
  /** How long {@link #awaitMatching} and {@link #awaitContaining} wait. */
  public static final Duration MESSAGE_DEADLINE = Duration.ofSeconds(30);

  private Events() {}

  /** Every Event about {@code object} (matched by uid), from any source. */
  public static List<Event> about(KubernetesClient client, HasMetadata object) {
    String uid = object.getMetadata().getUid();
    return client.v1().events().inNamespace(namespaceOf(object))
        .withField("involvedObject.uid", uid).list().getItems().stream()
        .filter(e -> e.getInvolvedObject() != null && uid.equals(e.getInvolvedObject().getUid()))
        .collect(Collectors.toList());
  }

  /** The Events syncgc recorded about {@code object}, oldest first. */
  public static List<Event> bySyncgc(KubernetesClient client, HasMetadata object) {
    return about(client, object).stream()
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

  /**
   * Waits (up to {@link #DEADLINE}) for a syncgc Event with this reason, of any type, about
   * {@code object}; returns the oldest such Event.
   */
  public static Event await(KubernetesClient client, HasMetadata object, String reason) {
    return await(client, object, "Event " + reason, e -> reason.equals(e.getReason()), DEADLINE);
  }

  /**
   * Waits (up to {@link #MESSAGE_DEADLINE}) for a syncgc Event about {@code object} with this type
   * and reason whose message satisfies {@code message} ({@code describeMessage} says how).
   */
  public static Event awaitMatching(KubernetesClient client, HasMetadata object, String type,
      String reason, String describeMessage, Predicate<String> message) {
    return await(client, object, type + " Event " + reason + " (" + describeMessage + ")",
        e -> type.equals(e.getType()) && reason.equals(e.getReason()) && e.getMessage() != null
            && message.test(e.getMessage()),
        MESSAGE_DEADLINE);
  }

  /** {@link #awaitMatching} a message that contains every fragment. */
  public static Event awaitContaining(KubernetesClient client, HasMetadata object, String type,
      String reason, String... fragments) {
    return awaitMatching(client, object, type, reason, "containing " + Arrays.toString(fragments),
        m -> Arrays.stream(fragments).allMatch(m::contains));
  }

  /** One line per Event: type, reason, source component, message. */
  public static String describe(List<Event> events) {
    if (events.isEmpty()) {
      return "  (none)";
    }
    return events.stream().map(e -> "  " + e.getType() + " " + e.getReason() + " ["
            + (e.getSource() == null ? "?" : e.getSource().getComponent()) + "]: " + e.getMessage())
        .collect(Collectors.joining("\n"));
  }

  /** Waits for a syncgc Event about {@code object} that matches; fails listing the Events there were. */
  private static Event await(KubernetesClient client, HasMetadata object, String what,
      Predicate<Event> matching, Duration deadline) {
    String on = what + " on " + object.getKind() + " " + namespaceOf(object) + "/"
        + object.getMetadata().getName() + " (uid " + object.getMetadata().getUid() + ")";
    AtomicReference<Event> found = new AtomicReference<>();
    try {
      Awaitility.await(on).atMost(deadline).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            bySyncgc(client, object).stream().filter(matching).findFirst().ifPresent(found::set);
            return found.get() != null;
          });
    } catch (RuntimeException e) {
      throw new AssertionError("no " + on + " within " + deadline + "; its Events:\n"
          + describe(about(client, object)), e);
    }
    return found.get();
  }

  private static boolean fromSyncgc(Event e) {
    return e.getSource() != null && SpecNames.COMPONENT.equals(e.getSource().getComponent());
  }

  private static String namespaceOf(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return namespace == null ? "default" : namespace;
  }
}
