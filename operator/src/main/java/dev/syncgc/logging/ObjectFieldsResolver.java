package dev.syncgc.logging;

import dev.syncgc.core.model.ObjectRef;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.layout.template.json.resolver.EventResolver;
import org.apache.logging.log4j.layout.template.json.util.JsonWriter;
import org.apache.logging.log4j.message.Message;

/**
 * The object a log line is about, as JSON fields: the first {@link ObjectRef} among the line's
 * parameters (the {@code object={}} of {@code log.info("... object={} uid={}", ref, uid)}) written as
 * {@code {"apiVersion", "kind", "namespace", "name", "uid"}} (namespace and uid when known). A line
 * about no object has no such field. The text format keeps {@code object=Kind/namespace/name uid=...}
 * in the line itself; the JSON format has both, the message as it reads and the fields to query.
 */
public final class ObjectFieldsResolver implements EventResolver {
  /** Its name in a template: {@code {"$resolver": "syncgcObject"}}. */
  public static final String NAME = "syncgcObject";

  static ObjectRef objectOf(LogEvent event) {
    Message message = event.getMessage();
    Object[] parameters = message == null ? null : message.getParameters();
    if (parameters != null) {
      for (Object p : parameters) {
        if (p instanceof ObjectRef ref) {
          return ref;
        }
      }
    }
    return null;
  }

  @Override
  public boolean isResolvable(LogEvent event) {
    return objectOf(event) != null;
  }

  @Override
  public void resolve(LogEvent event, JsonWriter json) {
    ObjectRef ref = objectOf(event);
    String[] fields = {"apiVersion", ref.apiVersion(), "kind", ref.kind(), "namespace", ref.namespace(),
        "name", ref.name(), "uid", ref.uid()};
    json.writeObjectStart();
    boolean first = true;
    for (int i = 0; i < fields.length; i += 2) {
      if (fields[i + 1] != null) {
        if (!first) {
          json.writeSeparator();
        }
        json.writeObjectKey(fields[i]);
        json.writeString(fields[i + 1]);
        first = false;
      }
    }
    json.writeObjectEnd();
  }
}
