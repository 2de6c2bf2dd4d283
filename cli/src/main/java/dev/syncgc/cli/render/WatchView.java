package dev.syncgc.cli.render;

import java.io.PrintStream;
import java.util.List;

/**
 * What {@code --watch} prints at each look: on a terminal the screen cleared and redrawn from the
 * top, as {@code watch} does, under a header with the interval and the time; otherwise each look
 * appended, when it differs from the one before, after an empty line (a log stays readable).
 */
public final class WatchView {
  /** Home, then clear the screen: the redraw starts at the top and leaves nothing of the last one. */
  static final String CLEAR = "\u001b[H\u001b[2J";

  private final ProgressView.Mode mode;
  private final PrintStream out;
  private final String header;
  private List<String> last;

  /** @param header the first line on a terminal ({@code Every 2s: kubectl syncgc status}) */
  public WatchView(ProgressView.Mode mode, PrintStream out, String header) {
    this.mode = mode;
    this.out = out;
    this.header = header;
  }

  /** One look's lines; {@code at}: when it was taken, as people read it. */
  public void show(List<String> lines, String at) {
    if (mode == ProgressView.Mode.TERMINAL) {
      StringBuilder b = new StringBuilder(CLEAR).append(header).append("  ").append(at).append("\n\n");
      lines.forEach(l -> b.append(l).append('\n'));
      out.print(b); // one write: no half-drawn screen
    } else if (!lines.equals(last)) {
      if (last != null && mode == ProgressView.Mode.PLAIN) {
        out.println();
      }
      lines.forEach(out::println);
    }
    out.flush();
    last = List.copyOf(lines);
  }

  /** The end: the target is gone. */
  public void end(String line) {
    if (mode != ProgressView.Mode.JSON) {
      out.println(line);
      out.flush();
    }
  }
}
