package dev.syncgc.cli.cluster;

import dev.syncgc.core.model.EventReason;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The operator's Events on one object (by uid; a cluster-scoped object's are in {@code default}, where
 * the operator records them), newest last. Events that cannot be read are none: they only add words.
 */
public final class OwnerEvents {
  private final List<Event> events;

  private OwnerEvents(List<Event> events) {
    this.events = events;
  }

  public static OwnerEvents read(Cluster cluster, String namespace, String uid) {
    try {
      List<Event> list = cluster.client.v1().events().inNamespace(namespace == null ? "default" : namespace)
          .withField("involvedObject.uid", uid).list().getItems();
      return new OwnerEvents(list.stream().sorted(Comparator.comparing(OwnerEvents::time)).toList());
    } catch (KubernetesClientException e) {
      return new OwnerEvents(List.of());
    }
  }

  /** The message of the latest Event with this reason. */
  public Optional<String> latest(EventReason reason) {
    for (int i = events.size() - 1; i >= 0; i--) {
      if (reason.name().equals(events.get(i).getReason())) {
        return Optional.ofNullable(events.get(i).getMessage());
      }
    }
    return Optional.empty();
  }

  private static Instant time(Event e) {
    for (String t : new String[] {e.getLastTimestamp(),
        e.getEventTime() == null ? null : e.getEventTime().getTime(), e.getMetadata().getCreationTimestamp()}) {
      if (t != null) {
        try {
          return Instant.parse(t);
        } catch (DateTimeParseException ignored) {
          // the next one
        }
      }
    }
    return Instant.EPOCH;
  }
}
