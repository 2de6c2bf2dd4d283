package dev.syncgc.core.graph;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * A map from uid to value in two arrays, open addressing with linear probing: no entry object per
 * key, and a removal shifts the rest of its probe run back instead of leaving a tombstone. The graph
 * has one for its nodes and one per owner for the dependents (java.util.HashMap took 32 bytes more
 * per entry). Keeps the first key instance given, so that it can be shared ({@link #key}). Not
 * thread-safe; the graph's monitor guards it.
 */
final class UidMap<V> implements Iterable<V> {
  private static final int INITIAL_CAPACITY = 2; // most owners have few dependents

  private String[] keys = new String[INITIAL_CAPACITY];
  private Object[] values = new Object[INITIAL_CAPACITY];
  private int size;

  V get(String key) {
    int i = find(key);
    return keys[i] == null ? null : value(i);
  }

  /** The instance of {@code key} this map holds, or null. */
  String key(String key) {
    return keys[find(key)];
  }

  V put(String key, V value) {
    int i = find(key);
    if (keys[i] != null) {
      V previous = value(i);
      values[i] = value;
      return previous;
    }
    insert(i, key, value);
    return null;
  }

  V computeIfAbsent(String key, Function<String, V> create) {
    int i = find(key);
    if (keys[i] != null) {
      return value(i);
    }
    V value = create.apply(key);
    insert(i, key, value);
    return value;
  }

  V remove(String key) {
    int i = find(key);
    if (keys[i] == null) {
      return null;
    }
    V previous = value(i);
    shiftBack(i);
    size--;
    return previous;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The values, in no particular order; the map must not change meanwhile. */
  @Override
  public Iterator<V> iterator() {
    return new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        while (from < keys.length && keys[from] == null) {
          from++;
        }
        return from;
      }

      @Override
      public boolean hasNext() {
        return next < keys.length;
      }

      @Override
      public V next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        V value = value(next);
        next = advance(next + 1);
        return value;
      }
    };
  }

  /** The slot holding {@code key}, or the empty slot that ends its probe run. */
  private int find(String key) {
    int mask = keys.length - 1;
    for (int i = home(key, mask); ; i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null || k.equals(key)) {
        return i;
      }
    }
  }

  private static int home(String key, int mask) {
    int h = key.hashCode() * 0x9E3779B9; // String hashes of similar uids differ in low bits only
    return (h ^ (h >>> 16)) & mask;
  }

  private void insert(int slot, String key, V value) {
    if ((size + 1) * 4L > keys.length * 3L) { // at most 3/4 full: probe runs stay short
      resize(keys.length * 2);
      slot = find(key);
    }
    keys[slot] = key;
    values[slot] = value;
    size++;
  }

  private void resize(int capacity) {
    String[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new String[capacity];
    values = new Object[capacity];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != null) {
        int slot = find(oldKeys[i]);
        keys[slot] = oldKeys[i];
        values[slot] = oldValues[i];
      }
    }
  }

  /** Empties slot {@code hole}, moving back every later key of the run that may live there. */
  private void shiftBack(int hole) {
    int mask = keys.length - 1;
    for (int i = (hole + 1) & mask; keys[i] != null; i = (i + 1) & mask) {
      int home = home(keys[i], mask);
      if (((i - home) & mask) >= ((i - hole) & mask)) { // its home is not after the hole
        keys[hole] = keys[i];
        values[hole] = values[i];
        hole = i;
      }
    }
    keys[hole] = null;
    values[hole] = null;
  }

  @SuppressWarnings("unchecked")
  private V value(int slot) {
    return (V) values[slot];
  }
}
