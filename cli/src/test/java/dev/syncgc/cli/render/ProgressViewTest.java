package dev.syncgc.cli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.cli.progress.Progress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgressViewTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String WAITING = "Waiting for 1 dependent: Widget/ns/held (held by finalizers [example.com/hold])";
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private static Progress twoLooks(String blockers) {
    Progress p = new Progress();
    p.add(new Progress.Sample(T0, 10, 10, null));
    p.add(new Progress.Sample(T0.plusSeconds(4), 6, 10, blockers));
    return p;
  }

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aLineSaysLeftOfTotalRateTimeLeftAndTheBlockersInTheEventsWords() {
    assertEquals("Widget/ns/root: 6 of 10 dependents left, 1.0/s, about 6s left; " + WAITING,
        ProgressView.line("Widget/ns/root", twoLooks(WAITING), false));
    assertEquals("Widget/ns/root: [########............] 40% 6 of 10 dependents left, 1.0/s, about 6s left",
        ProgressView.line("Widget/ns/root", twoLooks(null), true));
  }

  @Test
  void theEndSaysHowManyTheOperatorKept() {
    Progress p = twoLooks(null);
    assertEquals("Widget/ns/root deleted, with its 10 dependents; 3 kept (syncgc.dev/keep)",
        ProgressView.endLine("Widget/ns/root", ProgressView.End.DELETED, p, "3 kept (syncgc.dev/keep)"));
    assertEquals("3 kept (syncgc.dev/keep)", dev.syncgc.cli.commands.DeleteCommand.keptIn(
        "All dependents are gone; released after 1.5s; 3 dependents kept (syncgc.dev/keep)"));
    assertEquals("1 kept (syncgc.dev/keep)", dev.syncgc.cli.commands.DeleteCommand.keptIn(
        "All dependents are gone; released after 1.5s; 1 dependent kept (syncgc.dev/keep); not checked: [x]"));
    assertEquals(null, dev.syncgc.cli.commands.DeleteCommand.keptIn("All dependents are gone; released after 1.5s"));
  }

  @Test
  void aTimeLeftUnderASecondIsNeverSaidAsNone() {
    Progress p = new Progress();
    p.add(new Progress.Sample(T0, 6, 6, null));
    p.add(new Progress.Sample(T0.plusSeconds(2), 1, 6, null));
    assertEquals("Widget/ns/root: 1 of 6 dependents left, 2.5/s, about 1s left",
        ProgressView.line("Widget/ns/root", p, false), "0.4 s left, rounded up");
  }

  @Test
  void onATerminalTheLineIsRedrawnInPlaceAndEndsWithANewLine() {
    ProgressView view = new ProgressView(ProgressView.Mode.TERMINAL, out, "Widget/ns/root", Map.of());
    Progress p = twoLooks(null);
    view.progress(p);
    view.progress(p);
    view.end(ProgressView.End.DELETED, p, null);
    assertTrue(printed().startsWith("\r" + ProgressView.line("Widget/ns/root", p, true) + "\u001b[K\r"), printed());
    assertTrue(printed().endsWith("\u001b[K\nWidget/ns/root deleted, with its 10 dependents\n"), printed());
  }

  @Test
  void plainOutputPrintsALineOnlyWhenSomethingChanged() {
    ProgressView view = new ProgressView(ProgressView.Mode.PLAIN, out, "Widget/ns/root", Map.of());
    Progress p = twoLooks(WAITING);
    view.progress(p);
    p.add(new Progress.Sample(T0.plusSeconds(5), 6, 10, WAITING));
    view.progress(p);
    p.add(new Progress.Sample(T0.plusSeconds(6), 1, 10, WAITING));
    view.progress(p);
    view.end(ProgressView.End.TIMED_OUT, p, "deadline passed");
    List<String> lines = printed().lines().toList();
    assertEquals(3, lines.size(), printed());
    assertTrue(lines.get(0).startsWith("Widget/ns/root: 6 of 10"), printed());
    assertTrue(lines.get(1).startsWith("Widget/ns/root: 1 of 10"), printed());
    assertEquals("Widget/ns/root released at its deadline with 1 of 10 dependents left: deadline passed", lines.get(2));
    assertTrue(!printed().contains("\r") && !printed().contains("\u001b"), "no terminal control: " + printed());
  }

  @Test
  void jsonIsOneObjectPerLineForScripts() throws Exception {
    ProgressView view = new ProgressView(ProgressView.Mode.JSON, out, "Widget/ns/root", Map.of("name", "root"));
    Progress p = twoLooks(WAITING);
    view.sent("background");
    view.progress(p);
    view.end(ProgressView.End.TIMED_OUT, p, "deadline passed");
    List<String> lines = printed().lines().toList();
    assertEquals(3, lines.size(), printed());
    ObjectMapper json = new ObjectMapper();
    assertEquals("sent", json.readTree(lines.get(0)).path("event").asText());
    JsonNode progress = json.readTree(lines.get(1));
    assertEquals("progress", progress.path("event").asText());
    assertEquals("root", progress.path("target").path("name").asText());
    assertEquals(6, progress.path("left").asInt());
    assertEquals(10, progress.path("total").asInt());
    assertEquals(1.0, progress.path("ratePerSecond").asDouble(), 1e-9);
    assertEquals(6, progress.path("etaSeconds").asInt());
    assertEquals(WAITING, progress.path("blockers").asText());
    JsonNode end = json.readTree(lines.get(2));
    assertEquals("timedOut", end.path("event").asText());
    assertEquals("deadline passed", end.path("message").asText());
  }
}
