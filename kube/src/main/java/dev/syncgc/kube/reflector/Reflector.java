package dev.syncgc.kube.reflector;

import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.MetadataDecoder.Bookmark;
import dev.syncgc.kube.MetadataDecoder.Deleted;
import dev.syncgc.kube.MetadataDecoder.Event;
import dev.syncgc.kube.MetadataDecoder.Failed;
import dev.syncgc.kube.MetadataDecoder.Upserted;
import dev.syncgc.kube.reflector.WatchStream.Cut;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists and watches one kind (in one namespace, or all) as metadata, as client-go's reflector does: a
 * watch list ({@link InitialEvents}) whose stream goes on as the watch, or, once the API server has
 * rejected one or broken it off before its end, a paged LIST and then a watch from its resourceVersion.
 * A watch is resumed from the last version seen (an event's or a bookmark's) whenever it ends, and the
 * kind is listed again when the API server says that version is gone (410). Every failure is retried
 * after a growing pause; nothing here ever gives up. The watch holds no thread: its bytes are framed
 * and decoded on the HTTP client's threads ({@link WatchStream}).
 */
final class Reflector {
  private static final Logger log = LoggerFactory.getLogger(Reflector.class);
  /** A watch that ends sooner than this without an event counts as a failure, so that it is not a busy loop. */
  private static final Duration SHORTEST_WATCH = Duration.ofSeconds(1);

  private final TrackedKind kind;
  private final String namespace;
  private final KubeApi api;
  private final ReflectorListener listener;
  private final Executor lists;
  private final ScheduledExecutorService timer;
  private final Duration silenceLimit;
  private final Consumer<String> restarted;
  private volatile boolean stopped;
  private volatile boolean watching;
  /** The API server rejected a watch list, or broke one off: lists are paged from then on. */
  private volatile boolean paged;
  /** The resourceVersion a resumed watch starts from: the last event's or bookmark's, or the list's. */
  private volatile long version;
  private volatile AsyncBody body;
  private final Backoff backoff = new Backoff();

  /**
   * @param lists where LISTs run (they block on the client-side rate limit and the answer)
   * @param silenceLimit a watch that receives nothing (no event, no bookmark) for this long is cancelled
   *     and started again from the last version seen: its connection was dropped without a close
   * @param restarted told of each watch that ended other than at the server's timeout, and why:
   *     {@code failed}, {@code refused}, {@code expired}, {@code silent}
   */
  Reflector(TrackedKind kind, String namespace, KubeApi api, ReflectorListener listener, Executor lists,
      ScheduledExecutorService timer, Duration silenceLimit, Consumer<String> restarted) {
    this.silenceLimit = silenceLimit;
    this.restarted = restarted;
    this.kind = kind;
    this.namespace = namespace;
    this.api = api;
    this.listener = listener;
    this.lists = lists;
    this.timer = timer;
  }

  void start() {
    lists.execute(this::list);
  }

  void stop() {
    stopped = true;
    AsyncBody b = body;
    if (b != null) {
      b.cancel();
    }
  }

  boolean watching() {
    return watching;
  }

  private void list() {
    if (stopped) {
      return;
    }
    if (!paged) {
      watch(new InitialEvents());
      return;
    }
    Set<String> held = new HashSet<>();
    long at;
    try {
      at = api.listMetadata(kind, namespace, object -> {
        held.add(object.uid());
        listener.upserted(object);
      });
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        listener.refused(e);
      } else {
        log.warn("list failed kind={} namespace={} code={} error=\"{}\"", kind, namespace, e.getCode(),
            e.getMessage());
      }
      later(this::list);
      return;
    } catch (RuntimeException e) {
      log.warn("list failed kind={} namespace={} error={}", kind, namespace, e.toString());
      later(this::list);
      return;
    }
    version = at;
    listener.listed(at, held);
    backoff.reset();
    watch();
  }

  private void watch() {
    watch(null);
  }

  /** @param initial a watch list's start, or null for a watch from {@link #version} */
  private void watch(InitialEvents initial) {
    if (stopped) {
      return;
    }
    long from = version;
    // client-go's spread: watches of many kinds do not all end, and come back, at once
    long seconds = ThreadLocalRandom.current().nextLong(300, 600);
    String query = initial != null ? InitialEvents.query(seconds)
        : "?watch=true&allowWatchBookmarks=true&resourceVersion=" + from + "&timeoutSeconds=" + seconds;
    long openedAt = System.nanoTime();
    WatchStream stream = new WatchStream(kind, event -> handle(event, initial), () -> stopped);
    api.watchMetadata(kind, namespace, query, initial != null, Duration.ofSeconds(seconds + 30), stream)
        .whenComplete((response, failure) -> opened(response, failure, from, openedAt, stream, initial));
  }

  private void opened(HttpResponse<AsyncBody> response, Throwable failure, long from, long openedAt,
      WatchStream stream, InitialEvents initial) {
    Runnable again = initial == null ? this::watch : this::list;
    if (failure != null || stopped) {
      if (!stopped) {
        log.warn("watch failed kind={} namespace={} error={}", kind, namespace, String.valueOf(failure));
        restarted.accept("failed");
        later(again);
      }
      return;
    }
    int code = response.code();
    if (code != 200) {
      response.body().cancel();
      if (initial != null && code >= 400 && code < 500 && code != 410 && code != 429) {
        pageFromNowOn("answered " + code); // its parameters: 400 or 422 where WatchList is off; 403 listed to tell
        return; // once, where watch lists are off: not a restart
      }
      restarted.accept(code == 410 ? "expired" : "refused");
      if (code == 410) {
        log.info("watch from resourceVersion={} is gone (410) kind={} namespace={}; listing again", from, kind,
            namespace);
        lists.execute(this::list);
      } else if (code == 403) {
        listener.refused(new KubernetesClientException("watch forbidden", 403, null));
        later(this::list);
      } else {
        log.warn("watch answered {} kind={} namespace={}", code, kind, namespace);
        later(again);
      }
      return;
    }
    body = response.body();
    watching = true;
    backoff.reset();
    ScheduledFuture<?> silence = stream.cancelWhenSilent(timer, silenceLimit, response.body(), silentMillis -> {
      log.warn("watch silent for {} s kind={} namespace={}; starting it again from resourceVersion={}",
          silentMillis / 1000, kind, namespace, version);
      restarted.accept("silent");
    });
    response.body().consume();
    response.body().done().whenComplete((v, t) -> {
      watching = false;
      silence.cancel(false);
      if (stopped) {
        return;
      }
      if (stream.silenced()) {
        later(again); // resumes from the last version seen (a watch list: listed again)
      } else if (stream.cut() == Cut.GONE) {
        log.info("watch from resourceVersion={} expired (410) kind={} namespace={}; listing again", from,
            kind, namespace);
        restarted.accept("expired");
        lists.execute(this::list);
      } else if (stream.cut() == Cut.REJECTED || initial != null && !initial.ended()) {
        pageFromNowOn(stream.cut() == Cut.REJECTED ? "sent an error" : "ended before its initial events did");
      } else if (t != null || (version == from && System.nanoTime() - openedAt < SHORTEST_WATCH.toNanos())) {
        log.warn("watch ended kind={} namespace={} error={}", kind, namespace, String.valueOf(t));
        restarted.accept("failed");
        later(this::watch); // resumes from the last version seen
      } else {
        watch(); // the server's timeout: resume from the last version seen
      }
    });
  }

  /** The API server rejected a watch list or broke it off: no list so far; a paged LIST, now and from then on. */
  private void pageFromNowOn(String why) {
    if (!paged) {
      paged = true;
      log.info("watch list {} kind={} namespace={}; listing in pages from now on", why, kind, namespace);
    }
    lists.execute(this::list);
  }

  /** Hands an event over; says whether the watch must end here: its version gone, or a watch list broken. */
  private Cut handle(Event event, InitialEvents initial) {
    boolean listing = initial != null && !initial.ended();
    if (event instanceof Failed f) {
      if (f.code() == 410) {
        return Cut.GONE;
      }
      log.warn("watch error kind={} namespace={} code={} message=\"{}\"", kind, namespace, f.code(), f.message());
      return listing ? Cut.REJECTED : Cut.NONE;
    }
    if (event instanceof Upserted u) {
      listener.upserted(u.object());
      version = Math.max(version, u.object().resourceVersion());
    } else if (event instanceof Deleted d) {
      listener.deleted(d.object());
      version = Math.max(version, d.object().resourceVersion());
    } else if (event instanceof Bookmark b) {
      version = Math.max(version, b.resourceVersion());
    }
    if (listing && initial.take(event)) {
      version = initial.at();
      listener.listed(initial.at(), initial.takeHeld());
      backoff.reset();
    } else if (!listing) {
      listener.progressed(version);
    }
    return Cut.NONE;
  }

  /** Runs {@code step} after the {@link Backoff}'s pause. */
  private void later(Runnable step) {
    if (!stopped) {
      timer.schedule(() -> lists.execute(step), backoff.nextMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
