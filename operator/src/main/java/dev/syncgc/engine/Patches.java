package dev.syncgc.engine;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.KubeApi;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The patches syncgc sends. None can drop another writer's change: removals are JSON patches that
 * first test the uid and the exact entry they remove; additions are merge patches carrying the
 * resourceVersion they were computed from, so a concurrent change makes them fail with 409.
 */
final class Patches {
  private Patches() {}

  static String removeFinalizer(ObjectMetadata object, String finalizer) {
    return KubeApi.removeFinalizerPatch(object.uid(), object.finalizers(), finalizer);
  }

  /** Removes a finalizer and, if present, syncgc annotations of its own (opting out). */
  static String removeFinalizerAndAnnotations(ObjectMetadata object, String finalizer, List<String> annotations) {
    int index = object.finalizers().indexOf(finalizer);
    if (index < 0) {
      throw new IllegalArgumentException(object.ref() + " has no finalizer " + finalizer);
    }
    List<Map<String, Object>> ops = new ArrayList<>();
    ops.add(test("/metadata/uid", object.uid()));
    ops.add(test("/metadata/finalizers/" + index, finalizer));
    ops.add(Map.of("op", "remove", "path", "/metadata/finalizers/" + index));
    for (String key : annotations) {
      String value = object.annotation(key);
      if (value != null) {
        String path = "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
        ops.add(test(path, value));
        ops.add(Map.of("op", "remove", "path", path));
      }
    }
    return KubeApi.json(ops);
  }

  /** Sets annotations, if the object is still at the version it was read at. */
  static String setAnnotationsAt(ObjectMetadata object, Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("resourceVersion", Long.toString(object.resourceVersion()));
    metadata.put("annotations", annotations);
    return KubeApi.json(Map.of("metadata", metadata));
  }

  /**
   * Removes the reference to {@code ownerUid}, if every reference is still where the decision saw
   * it. The decision that the object survives rests on its other owners: if one of them dropped its
   * own reference meanwhile (two owners of the same cascade deciding at once, each seeing the other
   * as solid), removing this one too would leave the object owned by nobody, so the patch fails and
   * the object is looked at again.
   */
  static String removeOwnerReference(ObjectMetadata object, String ownerUid) {
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
    return KubeApi.json(ops);
  }

  /** Adds a finalizer and annotations, if the object is still at the version it was read at. */
  static String addFinalizer(ObjectMetadata object, String finalizer, Map<String, String> annotations) {
    List<String> finalizers = new ArrayList<>(object.finalizers());
    finalizers.add(finalizer);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("resourceVersion", Long.toString(object.resourceVersion()));
    metadata.put("finalizers", finalizers);
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    return KubeApi.json(Map.of("metadata", metadata));
  }

  /**
   * Sets annotations on the object with this uid only: a merge patch naming the uid cannot change
   * it, so one on an object recreated under the same name is refused (422) instead of marking it.
   */
  static String setAnnotationsOf(ObjectMetadata object, Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("uid", object.uid());
    metadata.put("annotations", annotations);
    return KubeApi.json(Map.of("metadata", metadata));
  }

  private static Map<String, Object> test(String path, Object value) {
    return Map.of("op", "test", "path", path, "value", value);
  }
}
