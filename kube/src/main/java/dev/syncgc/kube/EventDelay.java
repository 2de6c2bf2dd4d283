package dev.syncgc.kube;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A test hook that holds back one kind's watch events, in order, so that end-to-end tests can make
 * the race between watches of different kinds happen instead of hoping for it. Off unless
 * the environment variable named by the reflectors is set.
 */
public final class EventDelay {
  private static final Logger log = LoggerFactory.getLogger(EventDelay.class);
  private static final EventDelay NONE = new EventDelay(null, Duration.ZERO);

  private final String kind;
  private final Duration delay;
  private final ScheduledExecutorService executor;

  private EventDelay(String kind, Duration delay) {
    this.kind = kind;
    this.delay = delay;
    this.executor = kind == null ? null : Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "test-event-delay");
      t.setDaemon(true);
      return t;
    });
  }

  /** @param spec {@code Kind=millis}, or null; {@code name} is the variable it was read from */
  public static EventDelay fromEnvironment(String name, String spec) {
    if (spec == null || spec.isBlank()) {
      return NONE;
    }
    int eq = spec.indexOf('=');
    if (eq < 1) {
      throw new IllegalArgumentException(name + " must be Kind=millis, not " + spec);
    }
    EventDelay d = new EventDelay(spec.substring(0, eq).trim(),
        Duration.ofMillis(Long.parseLong(spec.substring(eq + 1).trim())));
    log.warn("TEST HOOK: watch events of kind={} are delivered {} ms late", d.kind, d.delay.toMillis());
    return d;
  }

  public void run(String eventKind, Runnable event) {
    if (executor == null || !kind.equals(eventKind)) {
      event.run();
    } else {
      executor.schedule(event, delay.toMillis(), TimeUnit.MILLISECONDS); // one thread: order kept
    }
  }
}
