package dev.syncgc.cli.commands;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.render.Output;
import dev.syncgc.cli.render.ProgressView;
import dev.syncgc.cli.render.WatchView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code -w/--watch} and {@code --interval}, and the loop they run: look, show, wait, until the target is gone. */
public final class Watch {
  @Option(names = {"-w", "--watch"}, description = "Look again every --interval, redrawn in place on a terminal"
      + " (appended when piped), until the object is gone (exit 0) or Ctrl-C.")
  boolean on;

  @Option(names = "--interval", defaultValue = "2s", converter = Interval.class, paramLabel = "DURATION",
      description = "Time between looks with --watch, e.g. 500ms, 2s, 1m (default: ${DEFAULT-VALUE}).")
  Duration interval;

  /** One look, written to {@code out} as the command writes it without --watch. */
  interface Look {
    void into(Output out);
  }

  /** Sleeps; a test passes one that does not. */
  interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  /**
   * Looks until the target is gone: a look that finds it missing (exit code 2) after one that found
   * it ends the watch with {@code gone} and exit 0; missing at the first look, it is the error it is.
   */
  int loop(String format, String header, String gone, Look look, PrintStream stdout, Sleeper sleeper)
      throws InterruptedException {
    if (!format.equalsIgnoreCase("text") && !format.equalsIgnoreCase("json")) {
      throw new CliException(ExitCodes.USAGE, "--watch prints text or json, not \"" + format + "\"");
    }
    ProgressView.Mode mode = format.equalsIgnoreCase("json") ? ProgressView.Mode.JSON
        : System.console() != null ? ProgressView.Mode.TERMINAL : ProgressView.Mode.PLAIN;
    WatchView view = new WatchView(mode, stdout, header);
    for (boolean first = true; ; first = false) {
      long started = System.nanoTime();
      ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      PrintStream into = new PrintStream(buffer, true, StandardCharsets.UTF_8);
      try {
        look.into(new Output(format, into, into)); // warnings in the frame, else a redraw would wipe them
      } catch (CliException e) {
        if (first || e.exitCode() != ExitCodes.NOT_FOUND) {
          throw e;
        }
        view.end(gone);
        return ExitCodes.OK;
      }
      List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().toList();
      view.show(lines, LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT)));
      Duration left = interval.minusNanos(System.nanoTime() - started);
      if (!left.isNegative()) {
        sleeper.sleep(left);
      }
    }
  }

  /** {@code 500ms}, {@code 2s}, {@code 1m}, or seconds alone; more than zero. */
  static final class Interval implements ITypeConverter<Duration> {
    private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m)?");

    @Override
    public Duration convert(String value) {
      Matcher m = FORM.matcher(value.trim());
      if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
        throw new CliException(ExitCodes.USAGE, "invalid --interval \"" + value + "\" (use e.g. 500ms, 2s or 1m)");
      }
      long n = Long.parseLong(m.group(1));
      return m.group(2) == null || m.group(2).equals("s") ? Duration.ofSeconds(n)
          : m.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofMinutes(n);
    }
  }
}
