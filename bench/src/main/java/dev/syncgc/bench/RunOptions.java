package dev.syncgc.bench;

import java.time.Duration;
import picocli.CommandLine.Option;

/** The flags of the commands that time cascades (compare, in-use): how often, how long a run may take, the pause. */
final class RunOptions {
  @Option(names = "--repetitions", defaultValue = "3",
      description = "Repetitions; each runs every contender on every workload (compare) or every variant (in-use), "
          + "in alternating order (default: ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(names = "--run-timeout", defaultValue = "1800",
      description = "Seconds a run may take before it counts as failed (default: ${DEFAULT-VALUE}).")
  long runTimeoutSeconds;

  @Option(names = "--settle-ms", defaultValue = "1000",
      description = "Pause before the DELETEs, once the objects are created (in-use: and the operator has seen them), "
          + "plus half a millisecond per object, so that the collectors' caches hold them (default: ${DEFAULT-VALUE}).")
  long settleMs;

  Duration runTimeout() {
    return Duration.ofSeconds(runTimeoutSeconds);
  }

  /** The pause before deleting {@code objects}: --settle-ms plus half a millisecond each. */
  long settleMillis(long objects) {
    return settleMs + objects / 2;
  }

  /** The CSV's note of the pause. */
  String settleNote() {
    return settleMs + " ms + 0.5 ms per object";
  }
}
