package dev.syncgc.core.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What syncgc keeps of an object: metadata only, never spec or status.
 *
 * @param annotations only the {@code syncgc.dev/} annotations
 * @param deletionGracePeriodSeconds null unless the object is being deleted gracefully
 */
public record ObjectMetadata(
    ObjectRef ref,
    long resourceVersion,
    List<OwnerLink> owners,
    List<String> finalizers,
    Instant deletionTimestamp,
    Long deletionGracePeriodSeconds,
    Map<String, String> annotations,
    Map<String, String> labels) {

  public ObjectMetadata {
    owners = List.copyOf(owners);
    finalizers = List.copyOf(finalizers);
    annotations = Map.copyOf(annotations);
    labels = Map.copyOf(labels);
  }

  public String uid() {
    return ref.uid();
  }

  public boolean beingDeleted() {
    return deletionTimestamp != null;
  }

  public boolean hasFinalizer(String finalizer) {
    return finalizers.contains(finalizer);
  }

  public String annotation(String key) {
    return annotations.get(key);
  }
}
