package dev.syncgc.kube.reflector;

import dev.syncgc.kube.MetadataDecoder.Bookmark;
import dev.syncgc.kube.MetadataDecoder.Deleted;
import dev.syncgc.kube.MetadataDecoder.Event;
import dev.syncgc.kube.MetadataDecoder.Upserted;
import java.util.HashSet;
import java.util.Set;

/**
 * The start of a watch list (KEP-3157, client-go's {@code watchList}): the API server sends what a
 * consistent LIST would hold as ADDED events, then a bookmark annotated {@code k8s.io/initial-events-end}
 * carrying the version they were read at; the same stream then goes on as an ordinary watch. Until
 * that bookmark the objects seen are no list: a stream that ends before it proves nothing absent.
 */
final class InitialEvents {
  /** Until handed over: the watch goes on for minutes, and this set holds a uid string per object. */
  private Set<String> held = new HashSet<>();
  /** Read when the stream ends, on another thread than the events'. */
  private volatile long at = -1;

  /**
   * A watch list read consistently, as a LIST without resourceVersion is: resourceVersion left out
   * (an empty one with NotOlderThan starts from etcd's latest revision, not the watch cache's).
   */
  static String query(long timeoutSeconds) {
    return "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
        + "&timeoutSeconds=" + timeoutSeconds;
  }

  /** Takes the stream's next event before the end; true when it is the end bookmark. */
  boolean take(Event event) {
    if (event instanceof Upserted u) {
      held.add(u.object().uid());
    } else if (event instanceof Deleted d) {
      held.remove(d.object().uid()); // not sent by a server that serves watch lists; kept exact anyway
    } else if (event instanceof Bookmark b && b.initialEventsEnd()) {
      at = b.resourceVersion();
      return true;
    }
    return false;
  }

  /** The end bookmark has come: {@link #takeHeld()} is a whole list read at {@link #at()}. */
  boolean ended() {
    return at >= 0;
  }

  long at() {
    return at;
  }

  /** The uids of the initial events, handed over once: this object forgets them. */
  Set<String> takeHeld() {
    Set<String> taken = held;
    held = Set.of();
    return taken;
  }
}
