package dev.syncgc.kube.reflector;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.MetadataDecoder.Bookmark;
import dev.syncgc.kube.reflector.MetadataDecoder.Deleted;
import dev.syncgc.kube.reflector.MetadataDecoder.Event;
import dev.syncgc.kube.reflector.MetadataDecoder.Failed;
import dev.syncgc.kube.reflector.MetadataDecoder.Upserted;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists and watches one kind (in one namespace, or all) as metadata, as client-go's reflector does: a
 * paged LIST, then a watch from the list's resourceVersion, resumed from the last version seen (an
 * event's or a bookmark's) whenever it ends, and a new LIST when the API server says that version is
 * gone (410). Every failure is retried after a growing pause; nothing here ever gives up.
 *
 * <p>The watch holds no thread: its bytes are framed and decoded on the HTTP client's threads, and
 * the next bytes are asked for only once an event is handed to the {@link Listener}.
 */
final class Reflector {
  private static final Logger log = LoggerFactory.getLogger(Reflector.class);
  /** A watch that ends sooner than this without an event counts as a failure, so that it is not a busy loop. */
  private static final Duration SHORTEST_WATCH = Duration.ofSeconds(1);
  private static final Duration FIRST_PAUSE = Duration.ofMillis(500);
  private static final Duration LONGEST_PAUSE = Duration.ofSeconds(30);

  /** What the reflector reports, in the order the API server sent it. */
  interface Listener {
    void upserted(ObjectMetadata object);

    void deleted(ObjectMetadata object);

    /** A LIST read at {@code at} held exactly {@code held} (uids); it has been delivered in full. */
    void listed(long at, Set<String> held);

    /** The API server refuses to list or watch the kind (403). */
    void refused(KubernetesClientException e);
  }

  private final TrackedKind kind;
  private final String namespace;
  private final KubeApi api;
  private final Listener listener;
  private final Executor lists;
  private final ScheduledExecutorService timer;
  private volatile boolean stopped;
  private volatile boolean watching;
  private volatile long version;
  private volatile AsyncBody body;
  private int failures;

  /** @param lists where LISTs run (they block on the client-side rate limit and the answer) */
  Reflector(TrackedKind kind, String namespace, KubeApi api, Listener listener, Executor lists,
      ScheduledExecutorService timer) {
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

  String namespace() {
    return namespace;
  }

  /** The resourceVersion a resumed watch starts from: the last event's or bookmark's, or the list's. */
  long version() {
    return version;
  }

  private void list() {
    if (stopped) {
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
    failures = 0;
    watch();
  }

  private void watch() {
    if (stopped) {
      return;
    }
    long from = version;
    // client-go's spread: watches of many kinds do not all end, and come back, at once
    long seconds = ThreadLocalRandom.current().nextLong(300, 600);
    String query = "?watch=true&allowWatchBookmarks=true&resourceVersion=" + from + "&timeoutSeconds=" + seconds;
    long openedAt = System.nanoTime();
    boolean[] expired = new boolean[1];
    EventFramer framer = new EventFramer((buffer, offset, length) -> {
      if (!stopped && !expired[0]) {
        expired[0] = handle(MetadataDecoder.event(kind, buffer, offset, length));
      }
    });
    AsyncBody.Consumer<List<ByteBuffer>> consumer = (buffers, b) -> {
      for (ByteBuffer buffer : buffers) {
        framer.feed(buffer);
      }
      if (expired[0] || stopped) {
        b.cancel();
      } else {
        b.consume();
      }
    };
    api.watchMetadata(kind, namespace, query, Duration.ofSeconds(seconds + 30), consumer)
        .whenComplete((response, failure) -> opened(response, failure, from, openedAt, expired));
  }

  private void opened(HttpResponse<AsyncBody> response, Throwable failure, long from, long openedAt,
      boolean[] expired) {
    if (failure != null || stopped) {
      if (!stopped) {
        log.warn("watch failed kind={} namespace={} error={}", kind, namespace, String.valueOf(failure));
        later(this::watch);
      }
      return;
    }
    if (response.code() != 200) {
      response.body().cancel();
      if (response.code() == 410) {
        log.info("watch from resourceVersion={} is gone (410) kind={} namespace={}; listing again", from, kind,
            namespace);
        lists.execute(this::list);
      } else if (response.code() == 403) {
        listener.refused(new KubernetesClientException("watch forbidden", 403, null));
        later(this::list);
      } else {
        log.warn("watch answered {} kind={} namespace={}", response.code(), kind, namespace);
        later(this::watch);
      }
      return;
    }
    body = response.body();
    watching = true;
    failures = 0;
    response.body().consume();
    response.body().done().whenComplete((v, t) -> {
      watching = false;
      if (stopped) {
        return;
      }
      if (expired[0]) {
        log.info("watch from resourceVersion={} expired (410) kind={} namespace={}; listing again", from,
            kind, namespace);
        lists.execute(this::list);
      } else if (t != null || (version == from && System.nanoTime() - openedAt < SHORTEST_WATCH.toNanos())) {
        log.warn("watch ended kind={} namespace={} error={}", kind, namespace, String.valueOf(t));
        later(this::watch); // resumes from the last version seen
      } else {
        watch(); // the server's timeout: resume from the last version seen
      }
    });
  }

  /** Hands an event over; true when its version is gone and the kind must be listed again. */
  private boolean handle(Event event) {
    if (event instanceof Upserted u) {
      listener.upserted(u.object());
      version = Math.max(version, u.object().resourceVersion());
    } else if (event instanceof Deleted d) {
      listener.deleted(d.object());
      version = Math.max(version, d.object().resourceVersion());
    } else if (event instanceof Bookmark b) {
      version = Math.max(version, b.resourceVersion());
    } else if (event instanceof Failed f) {
      if (f.code() == 410) {
        return true;
      }
      log.warn("watch error kind={} namespace={} code={} message=\"{}\"", kind, namespace, f.code(), f.message());
    }
    return false;
  }

  /** Runs {@code step} after a pause that doubles with each failure in a row (with jitter), up to 30 s. */
  private void later(Runnable step) {
    if (stopped) {
      return;
    }
    long pause = Math.min(LONGEST_PAUSE.toMillis(), FIRST_PAUSE.toMillis() << Math.min(failures++, 10));
    pause = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
    timer.schedule(() -> lists.execute(step), pause, TimeUnit.MILLISECONDS);
  }
}
