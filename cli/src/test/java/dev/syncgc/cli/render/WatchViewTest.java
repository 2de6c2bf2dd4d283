package dev.syncgc.cli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchViewTest {
  @Test
  void onATerminalEveryLookClearsTheScreenAndRedrawsFromTheTop() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    WatchView view = new WatchView(ProgressView.Mode.TERMINAL, new PrintStream(bytes, true, StandardCharsets.UTF_8),
        "Every 2s: kubectl syncgc status -n ns");

    view.show(List.of("deletions in progress in namespace ns: 1 owner"), "10:00:00");
    view.show(List.of("deletions in progress in namespace ns: 1 owner"), "10:00:02");
    view.end("done");

    assertEquals(WatchView.CLEAR + "Every 2s: kubectl syncgc status -n ns  10:00:00\n\n"
        + "deletions in progress in namespace ns: 1 owner\n"
        + WatchView.CLEAR + "Every 2s: kubectl syncgc status -n ns  10:00:02\n\n"
        + "deletions in progress in namespace ns: 1 owner\ndone\n", bytes.toString(StandardCharsets.UTF_8));
  }
}
