package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.util.LinkedHashMap;
import java.util.Map;

/** Small pieces the commands share. */
final class Notes {
  private Notes() {}

  /** On stderr: kinds that could not be listed, so that nothing missing is silent. */
  static void notChecked(Snapshot s) {
    if (!s.notChecked.isEmpty()) {
      System.err.println("warning: not checked (could not list): " + String.join(", ", s.notChecked));
    }
  }

  static Map<String, Object> ref(ObjectMetadata o) {
    return ref(o.ref());
  }

  static Map<String, Object> ref(ObjectRef r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("apiVersion", r.apiVersion());
    m.put("kind", r.kind());
    if (r.namespace() != null) {
      m.put("namespace", r.namespace());
    }
    m.put("name", r.name());
    m.put("uid", r.uid());
    return m;
  }

  static String name(ObjectRef r) {
    return r.kind() + "/" + (r.namespace() == null ? "" : r.namespace() + "/") + r.name();
  }
}
