package dev.syncgc.core.graph;

import java.util.HashMap;
import java.util.Map;

/**
 * One instance of each equal label map, finalizer list and annotation map: objects made from one
 * template (a Deployment's Pods, a Helm release, an operator's children) repeat them, about 100 bytes
 * per object. Bounded: when full it starts over, so values that never repeat cannot hold memory.
 */
final class SharedValues {
  private static final int MAX = 10_000;

  private final Map<Object, Object> pool = new HashMap<>();

  @SuppressWarnings("unchecked")
  <T> T shared(T value) {
    Object held = pool.get(value);
    if (held != null) {
      return (T) held;
    }
    if (pool.size() >= MAX) {
      pool.clear();
    }
    pool.put(value, value);
    return value;
  }
}
