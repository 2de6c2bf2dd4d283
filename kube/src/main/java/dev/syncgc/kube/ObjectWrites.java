package dev.syncgc.kube;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Every write syncgc makes to an object, in one place: each built with the preconditions that keep
 * it from landing on anything but what the decision saw, sent through {@link KubeApi} (rate limit,
 * 429, the send-time check {@code stopped}), its answer an {@link ApiResult} read by one set of
 * rules (409 and a failed JSON-patch test are conflicts, admission and RBAC refusals are not: the
 * answer matrix). None can drop another writer's change: removals are JSON patches that first test
 * the uid and the exact entry they remove; additions are merge patches carrying the uid and the
 * resourceVersion they were computed from, so a concurrent change makes them fail with 409.
 *
 * <p>{@code stopped} is asked just before the call goes out: a reason not to send it (the facts
 * the decision rested on changed), or null.
 */
public final class ObjectWrites {
  private static final Supplier<String> ALWAYS = () -> null;
  /**
   * For writes that rest on no cascade's facts (opting an object in or out, the uninstall): nothing
   * to check when they are sent but their own preconditions.
   */
  public static final Supplier<String> UNCHECKED = ALWAYS;

  private final KubeApi api;

  public ObjectWrites(KubeApi api) {
    this.api = api;
  }

  /**
   * DELETE that only hits the object with this uid, at this resourceVersion (unless 0): a change
   * since the version the decision was taken on (an owner added, the object recreated) is refused
   * with 409. {@code propagationPolicy}: Background for a dependent (what syncgc does not track goes
   * as the built-in collector would), Orphan or Foreground for a hand-over.
   */
  public ApiResult delete(TrackedKind kind, ObjectRef ref, long resourceVersion, Long gracePeriodSeconds,
      String propagationPolicy, Supplier<String> stopped) {
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("apiVersion", "v1");
    options.put("kind", "DeleteOptions");
    Map<String, String> preconditions = new LinkedHashMap<>();
    preconditions.put("uid", ref.uid());
    if (resourceVersion > 0) {
      preconditions.put("resourceVersion", Long.toString(resourceVersion));
    }
    options.put("preconditions", preconditions);
    options.put("propagationPolicy", propagationPolicy);
    if (gracePeriodSeconds != null) {
      options.put("gracePeriodSeconds", gracePeriodSeconds);
    }
    return api.delete(kind, ref, KubeApi.json(options), stopped);
  }

  /** Adds a finalizer and annotations, if the object is still at the version it was read at. */
  public ApiResult addFinalizer(TrackedKind kind, ObjectMetadata object, String finalizer,
      Map<String, String> annotations, Supplier<String> stopped) {
    List<String> finalizers = new ArrayList<>(object.finalizers());
    finalizers.add(finalizer);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("resourceVersion", Long.toString(object.resourceVersion()));
    metadata.put("finalizers", finalizers);
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    return merge(kind, object.ref(), metadata, stopped);
  }

  /** Removes a finalizer, testing the uid and the entry (the finalizers as last read). */
  public ApiResult removeFinalizer(TrackedKind kind, ObjectRef ref, List<String> finalizers, String finalizer,
      Supplier<String> stopped) {
    return json(kind, ref, removeFinalizerOps(ref.uid(), finalizers, finalizer), stopped);
  }

  public ApiResult removeFinalizer(TrackedKind kind, ObjectRef ref, List<String> finalizers, String finalizer) {
    return removeFinalizer(kind, ref, finalizers, finalizer, ALWAYS);
  }

  /** Removes a finalizer and, if present, syncgc annotations of its own (opting out), each tested first. */
  public ApiResult removeFinalizerAndAnnotations(TrackedKind kind, ObjectMetadata object, String finalizer,
      List<String> annotations) {
    List<Map<String, Object>> ops = removeFinalizerOps(object.uid(), object.finalizers(), finalizer);
    for (String key : annotations) {
      String value = object.annotation(key);
      if (value != null) {
        String path = "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
        ops.add(test(path, value));
        ops.add(Map.of("op", "remove", "path", path));
      }
    }
    return json(kind, object.ref(), ops, ALWAYS);
  }

  /** Sets annotations, if the object is still at the version it was read at. */
  public ApiResult setAnnotationsAt(TrackedKind kind, ObjectMetadata object, Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("resourceVersion", Long.toString(object.resourceVersion()));
    metadata.put("annotations", annotations);
    return merge(kind, object.ref(), metadata, ALWAYS);
  }

  /**
   * Sets annotations on the object with this uid only: a merge patch naming the uid cannot change
   * it, so one on an object recreated under the same name is refused (422) instead of marking it.
   */
  public ApiResult setAnnotationsOf(TrackedKind kind, ObjectMetadata object, Map<String, String> annotations,
      Supplier<String> stopped) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("annotations", annotations);
    return merge(kind, object.ref(), metadata, stopped);
  }

  /**
   * Removes the reference to {@code ownerUid}, if every reference is still where the decision saw
   * it. The decision that the object survives rests on its other owners: if one of them dropped its
   * own reference meanwhile (two owners of the same cascade deciding at once, each seeing the other
   * as solid), removing this one too would leave the object owned by nobody, so the patch fails and
   * the object is looked at again.
   */
  public ApiResult removeOwnerReference(TrackedKind kind, ObjectMetadata object, String ownerUid,
      Supplier<String> stopped) {
    int index = -1;
    for (int i = 0; i < object.owners().size(); i++) {
      if (object.owners().get(i).uid().equals(ownerUid)) {
        index = i;
        break;
      }
    }
    if (index < 0) {
      throw new IllegalArgumentException(object.ref() + " has no owner " + ownerUid);
    }
    List<Map<String, Object>> ops = new ArrayList<>();
    ops.add(test("/metadata/uid", object.uid()));
    for (int i = 0; i < object.owners().size(); i++) {
      ops.add(test("/metadata/ownerReferences/" + i + "/uid", object.owners().get(i).uid()));
    }
    ops.add(Map.of("op", "remove", "path", "/metadata/ownerReferences/" + index));
    return json(kind, object.ref(), ops, stopped);
  }

  private static List<Map<String, Object>> removeFinalizerOps(String uid, List<String> finalizers, String finalizer) {
    int index = finalizers.indexOf(finalizer);
    if (index < 0) {
      throw new IllegalArgumentException("no finalizer " + finalizer);
    }
    List<Map<String, Object>> ops = new ArrayList<>();
    ops.add(test("/metadata/uid", uid));
    ops.add(test("/metadata/finalizers/" + index, finalizer));
    ops.add(Map.of("op", "remove", "path", "/metadata/finalizers/" + index));
    return ops;
  }

  private ApiResult merge(TrackedKind kind, ObjectRef ref, Map<String, Object> metadata, Supplier<String> stopped) {
    return api.patch(kind, ref, KubeApi.MERGE_PATCH, KubeApi.json(Map.of("metadata", metadata)), stopped);
  }

  private ApiResult json(TrackedKind kind, ObjectRef ref, List<Map<String, Object>> ops, Supplier<String> stopped) {
    return api.patch(kind, ref, KubeApi.JSON_PATCH, KubeApi.json(ops), stopped);
  }

  private static Map<String, Object> test(String path, Object value) {
    return Map.of("op", "test", "path", path, "value", value);
  }
}
