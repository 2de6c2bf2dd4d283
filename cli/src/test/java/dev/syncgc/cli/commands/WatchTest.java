package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream stdout = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final List<Duration> slept = new ArrayList<>();

  private Watch watch(String interval) {
    Watch w = new Watch();
    w.on = true;
    w.interval = new Watch.Interval().convert(interval);
    return w;
  }

  /** Looks that print these frames, then find the target gone. */
  private static Watch.Look frames(String... frames) {
    Deque<String> left = new ArrayDeque<>(List.of(frames));
    return out -> {
      if (left.isEmpty()) {
        throw new CliException(ExitCodes.NOT_FOUND, "Widget root not found in namespace ns");
      }
      left.removeFirst().lines().forEach(out::line);
      out.warn("warning: one kind not listed");
    };
  }

  @Test
  void piped_eachChangedLookIsAppendedAndTheWatchEndsWhenTheTargetIsGone() throws InterruptedException {
    int code = watch("500ms").loop("text", "Every 500ms: kubectl syncgc why widget root", "widget root is gone",
        frames("waiting for 2", "waiting for 2", "waiting for 1"), stdout, slept::add);

    assertEquals(ExitCodes.OK, code);
    assertEquals("waiting for 2\nwarning: one kind not listed\n\nwaiting for 1\nwarning: one kind not listed\n"
        + "widget root is gone\n", bytes.toString(StandardCharsets.UTF_8));
    assertEquals(3, slept.size(), "a wait after each look that found the target");
    slept.forEach(d -> assertEquals(true, d.compareTo(Duration.ofMillis(500)) <= 0 && !d.isNegative(), d.toString()));
  }

  @Test
  void aTargetMissingAtTheFirstLookIsTheErrorItIs() {
    CliException e = assertThrows(CliException.class,
        () -> watch("2s").loop("text", "h", "gone", frames(), stdout, slept::add));
    assertEquals(ExitCodes.NOT_FOUND, e.exitCode());
  }

  @Test
  void intervalsAreDurationsAsKubectlWritesThemAndMoreThanZero() {
    assertEquals(Duration.ofMillis(500), new Watch.Interval().convert("500ms"));
    assertEquals(Duration.ofSeconds(3), new Watch.Interval().convert("3"));
    assertEquals(Duration.ofMinutes(1), new Watch.Interval().convert("1m"));
    assertEquals(ExitCodes.USAGE, assertThrows(CliException.class, () -> new Watch.Interval().convert("0s")).exitCode());
    assertEquals(ExitCodes.USAGE, assertThrows(CliException.class, () -> new Watch.Interval().convert("soon")).exitCode());
  }
}
