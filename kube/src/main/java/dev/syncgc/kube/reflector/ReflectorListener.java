package dev.syncgc.kube.reflector;

import dev.syncgc.core.model.ObjectMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Set;

/** What the reflector reports, in the order the API server sent it. */
interface ReflectorListener {
  void upserted(ObjectMetadata object);

  void deleted(ObjectMetadata object);

  /** A list (paged, or a watch list's initial events) read at {@code at} held exactly {@code held} (uids), all delivered. */
  void listed(long at, Set<String> held);

  /**
   * Every event of the watch up to this resourceVersion is delivered: the watch's events come in the
   * API server's order, so nothing of the kind older than it is missing. Not said during a list.
   */
  void progressed(long resourceVersion);

  /** The API server refuses to list or watch the kind (403). */
  void refused(KubernetesClientException e);
}
