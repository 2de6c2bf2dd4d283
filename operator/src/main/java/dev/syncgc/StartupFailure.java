package dev.syncgc;

/** A start-up that cannot go on, with one line telling the user why and what to do; exit code 1. */
final class StartupFailure extends RuntimeException {
  StartupFailure(String message) {
    super(message, null, false, false);
  }
}
