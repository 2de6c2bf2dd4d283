package dev.syncgc.core.graph;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The uids of the latest objects seen deleted. uids are never reused, so one of them cannot come back:
 * a late LIST result holding it is stale. Bounded: the oldest is forgotten first.
 */
final class Tombstones {
  static final int MAX = 50_000;

  private final Map<String, Boolean> uids = new LinkedHashMap<>(1024, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > MAX;
    }
  };

  void add(String uid) {
    uids.put(uid, Boolean.TRUE);
  }

  boolean contains(String uid) {
    return uids.containsKey(uid);
  }
}
