package dev.syncgc.kube.reflector;

import java.util.concurrent.ThreadLocalRandom;

/** A pause that doubles with each failure in a row, with jitter, from 0.5 s up to 30 s; a success starts it over. */
final class Backoff {
  private static final long FIRST_MILLIS = 500;
  private static final long LONGEST_MILLIS = 30_000;
  private int failures;

  /** The pause before the next try, counting one more failure. */
  synchronized long nextMillis() {
    long pause = Math.min(LONGEST_MILLIS, FIRST_MILLIS << Math.min(failures++, 10));
    return pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
  }

  synchronized void reset() {
    failures = 0;
  }
}
