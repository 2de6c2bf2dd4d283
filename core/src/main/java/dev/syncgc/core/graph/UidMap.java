package dev.syncgc.core.graph;

import dev.syncgc.core.model.Uids;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Nodes by uid in one array, open addressing with linear probing: each node holds its own uid, so
 * there is neither an entry object nor a key per slot, and a probe compares two longs. A removal
 * shifts the rest of its probe run back instead of leaving a tombstone. The graph has one for its
 * nodes and one per owner for the dependents (java.util.HashMap took 32 bytes more per entry). Not
 * thread-safe; the graph's monitor guards it.
 */
final class UidMap implements Iterable<Node> {
  private static final int INITIAL_CAPACITY = 2; // most owners have few dependents

  private Node[] slots = new Node[INITIAL_CAPACITY];
  private int size;

  Node get(long high, long low, String opaque) {
    return slots[find(high, low, opaque)];
  }

  /** Files {@code node} under its uid, replacing the node held for it if any. */
  void add(Node node) {
    int i = find(node.high, node.low, node.opaque);
    if (slots[i] != null) {
      slots[i] = node;
      return;
    }
    if ((size + 1) * 4L > slots.length * 3L) { // at most 3/4 full: probe runs stay short
      resize(slots.length * 2);
      i = find(node.high, node.low, node.opaque);
    }
    slots[i] = node;
    size++;
  }

  Node remove(long high, long low, String opaque) {
    int i = find(high, low, opaque);
    Node previous = slots[i];
    if (previous != null) {
      shiftBack(i);
      size--;
    }
    return previous;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The nodes, in no particular order; the map must not change meanwhile. */
  @Override
  public Iterator<Node> iterator() {
    return new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        while (from < slots.length && slots[from] == null) {
          from++;
        }
        return from;
      }

      @Override
      public boolean hasNext() {
        return next < slots.length;
      }

      @Override
      public Node next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Node node = slots[next];
        next = advance(next + 1);
        return node;
      }
    };
  }

  /** The slot holding the uid, or the empty slot that ends its probe run. */
  private int find(long high, long low, String opaque) {
    int mask = slots.length - 1;
    for (int i = home(high, low, opaque, mask); ; i = (i + 1) & mask) {
      Node n = slots[i];
      if (n == null || n.is(high, low, opaque)) {
        return i;
      }
    }
  }

  private static int home(long high, long low, String opaque, int mask) {
    return Uids.hash(high, low, opaque) & mask;
  }

  private void resize(int capacity) {
    Node[] old = slots;
    slots = new Node[capacity];
    for (Node node : old) {
      if (node != null) {
        slots[find(node.high, node.low, node.opaque)] = node;
      }
    }
  }

  /** Empties slot {@code hole}, moving back every later node of the run that may live there. */
  private void shiftBack(int hole) {
    int mask = slots.length - 1;
    for (int i = (hole + 1) & mask; slots[i] != null; i = (i + 1) & mask) {
      int home = home(slots[i].high, slots[i].low, slots[i].opaque, mask);
      if (((i - home) & mask) >= ((i - hole) & mask)) { // its home is not after the hole
        slots[hole] = slots[i];
        hole = i;
      }
    }
    slots[hole] = null;
  }
}
