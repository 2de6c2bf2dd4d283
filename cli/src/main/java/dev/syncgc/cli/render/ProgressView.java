package dev.syncgc.cli.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.cli.progress.Progress;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code kubectl syncgc delete} prints while it watches: on a terminal one progress line with a
 * bar, redrawn in place; otherwise a plain line each time something changes (dependents left,
 * total or blockers); with {@code -o json} one JSON object per line ({@code "event"}: {@code progress},
 * then {@code deleted} or {@code timedOut}, or only {@code sent} without waiting).
 */
public final class ProgressView {
  /** How it is shown. */
  public enum Mode { TERMINAL, PLAIN, JSON }

  /** How the watch ended. */
  public enum End { DELETED, TIMED_OUT }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BAR = 20;

  private final Mode mode;
  private final PrintStream out;
  private final String name;
  private final Map<String, Object> target;
  private String lastShown;
  private boolean redrawn;

  /**
   * @param name the object as people read it ({@code Widget/ns/root})
   * @param target the object for scripts (apiVersion, kind, namespace, name, uid)
   */
  public ProgressView(Mode mode, PrintStream out, String name, Map<String, Object> target) {
    this.mode = mode;
    this.out = out;
    this.name = name;
    this.target = target;
  }

  /** The DELETE was sent. */
  public void sent(String cascade) {
    if (mode == Mode.JSON) {
      Map<String, Object> m = event("sent");
      m.put("cascade", cascade);
      json(m);
    } else {
      out.println(name + " deleted (cascade " + cascade + ")");
    }
  }

  /** A new look at the owner. */
  public void progress(Progress p) {
    String changed = p.left() + "/" + p.total() + "/" + p.blockers();
    switch (mode) {
      case TERMINAL -> {
        out.print("\r" + line(name, p, true) + "\u001b[K");
        out.flush();
        redrawn = true;
      }
      case PLAIN -> {
        if (!changed.equals(lastShown)) {
          out.println(line(name, p, false));
        }
      }
      case JSON -> {
        if (!changed.equals(lastShown)) {
          json(model("progress", p));
        }
      }
    }
    lastShown = changed;
  }

  /** The owner is gone: everything went, or the deadline released it ({@code message}: the Event's). */
  public void end(End end, Progress p, String message) {
    if (mode == Mode.JSON) {
      Map<String, Object> m = model(end == End.DELETED ? "deleted" : "timedOut", p);
      if (message != null) {
        m.put("message", message);
      }
      json(m);
      return;
    }
    if (redrawn) {
      out.println();
    }
    out.println(endLine(name, end, p, message));
  }

  /** One progress line: {@code Widget/ns/root: [####......] 7 of 10 dependents left, 1.5/s, about 5s left; <blockers>}. */
  public static String line(String name, Progress p, boolean bar) {
    StringBuilder b = new StringBuilder(name).append(": ");
    if (bar) {
      b.append(bar(p)).append(' ');
    }
    b.append(p.left()).append(" of ").append(p.total()).append(p.total() == 1 ? " dependent" : " dependents")
        .append(" left");
    if (p.rate().isPresent()) {
      b.append(", ").append(String.format(Locale.ROOT, "%.1f/s", p.rate().getAsDouble()));
    }
    b.append(p.eta().map(d -> ", about " + TreeView.human(d.plusMillis(999)) + " left") // whole seconds, rounded up
        .orElse(p.left() > 0 ? ", time left unknown" : ""));
    if (p.blockers() != null && p.left() > 0) {
      b.append("; ").append(p.blockers());
    }
    return b.toString();
  }

  static String bar(Progress p) {
    int filled = p.total() == 0 ? BAR : (int) ((long) p.gone() * BAR / p.total());
    int percent = p.total() == 0 ? 100 : (int) ((long) p.gone() * 100 / p.total());
    return "[" + "#".repeat(filled) + ".".repeat(BAR - filled) + "] " + percent + "%";
  }

  public static String endLine(String name, End end, Progress p, String message) {
    if (end == End.DELETED) {
      return name + " deleted" + (p.total() == 0 ? "" : ", with its " + p.total()
          + (p.total() == 1 ? " dependent" : " dependents")) + (message == null ? "" : "; " + message);
    }
    return name + " released at its deadline with " + p.left() + " of " + p.total()
        + (p.total() == 1 ? " dependent" : " dependents") + " left" + (message == null ? "" : ": " + message);
  }

  /** The JSON object of one event. */
  public Map<String, Object> model(String event, Progress p) {
    Map<String, Object> m = event(event);
    m.put("left", p.left());
    m.put("total", p.total());
    m.put("ratePerSecond", p.rate().isPresent() ? Math.round(p.rate().getAsDouble() * 100) / 100.0 : null);
    m.put("etaSeconds", p.eta().map(d -> d.toSeconds()).orElse(null));
    m.put("blockers", p.blockers());
    return m;
  }

  private Map<String, Object> event(String event) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", event);
    m.put("target", Objects.requireNonNullElse(target, Map.of()));
    return m;
  }

  private void json(Map<String, Object> m) {
    try {
      out.println(JSON.writeValueAsString(m));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
