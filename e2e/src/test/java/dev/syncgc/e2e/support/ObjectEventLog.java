package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * The core/v1 Events recorded about one object, found by {@code involvedObject.uid} in the object's
 * namespace ({@code default} for cluster-scoped objects). They outlive the object.
 */
public final class ObjectEventLog {
  public static final Duration DEADLINE = Duration.ofSeconds(30);

  private ObjectEventLog() {}

  /** Every Event about {@code object} (matched by uid), from any source. */
  public static List<Event> of(KubernetesClient client, HasMetadata object) {
    String uid = object.getMetadata().getUid();
    String namespace = object.getMetadata().getNamespace() == null ? "default"
        : object.getMetadata().getNamespace();
    return client.v1().events().inNamespace(namespace).withField("involvedObject.uid", uid).list()
        .getItems().stream()
        .filter(e -> e.getInvolvedObject() != null && uid.equals(e.getInvolvedObject().getUid()))
        .collect(Collectors.toList());
  }

  /** The Events syncgc recorded about {@code object} with this type and reason. */
  public static List<Event> bySyncgc(KubernetesClient client, HasMetadata object, String type,
      String reason) {
    return of(client, object).stream()
        .filter(e -> e.getSource() != null && SpecNames.COMPONENT.equals(e.getSource().getComponent()))
        .filter(e -> type.equals(e.getType()) && reason.equals(e.getReason()))
        .collect(Collectors.toList());
  }

  /**
   * Waits for an Event from syncgc about {@code object} with this type and reason whose message
   * satisfies {@code message}; fails listing the Events that were there.
   */
  public static Event await(KubernetesClient client, HasMetadata object, String type, String reason,
      String describeMessage, Predicate<String> message) {
    String what = type + " Event " + reason + " (" + describeMessage + ") on "
        + object.getKind() + " " + object.getMetadata().getName();
    try {
      Awaitility.await(what).atMost(DEADLINE).pollInterval(Duration.ofMillis(200))
          .until(() -> find(client, object, type, reason, message).isPresent());
    } catch (RuntimeException e) {
      throw new AssertionError("no " + what + "; its Events: " + describe(of(client, object)), e);
    }
    return find(client, object, type, reason, message).orElseThrow();
  }

  /** Waits for an Event from syncgc whose message contains every fragment. */
  public static Event awaitContaining(KubernetesClient client, HasMetadata object, String type,
      String reason, String... fragments) {
    return await(client, object, type, reason, "containing " + Arrays.toString(fragments),
        m -> Arrays.stream(fragments).allMatch(m::contains));
  }

  private static Optional<Event> find(KubernetesClient client, HasMetadata object, String type,
      String reason, Predicate<String> message) {
    return bySyncgc(client, object, type, reason).stream()
        .filter(e -> e.getMessage() != null && message.test(e.getMessage()))
        .findFirst();
  }

  public static String describe(List<Event> events) {
    if (events.isEmpty()) {
      return "(none)";
    }
    return events.stream().map(e -> "\n  " + e.getType() + " " + e.getReason() + " ["
            + (e.getSource() == null ? "?" : e.getSource().getComponent()) + "]: " + e.getMessage())
        .collect(Collectors.joining());
  }
}
