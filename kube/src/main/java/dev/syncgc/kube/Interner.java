package dev.syncgc.kube;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Shares the strings that repeat across objects (namespaces, kinds, finalizers, label values). */
public final class Interner {
  private static final ConcurrentMap<String, String> POOL = new ConcurrentHashMap<>();
  private static final int MAX = 100_000;

  private Interner() {}

  public static String intern(String s) {
    if (s == null) {
      return null;
    }
    String pooled = POOL.get(s);
    if (pooled != null) {
      return pooled;
    }
    if (POOL.size() >= MAX) {
      return s;
    }
    pooled = POOL.putIfAbsent(s, s);
    return pooled == null ? s : pooled;
  }
}
