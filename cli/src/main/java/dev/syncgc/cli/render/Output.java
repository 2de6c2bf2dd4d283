package dev.syncgc.cli.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.PrintStream;
import java.util.Locale;

/** Prints a result for people (text) or scripts ({@code -o json|yaml}); the model is plain maps and lists. */
public final class Output {
  /** Made at the first -o json, not at every start. */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  }

  private final String format;
  private final PrintStream out;
  private final PrintStream err;

  public Output(String format, PrintStream out, PrintStream err) {
    this.format = format.toLowerCase(Locale.ROOT);
    if (!this.format.equals("text") && !this.format.equals("json") && !this.format.equals("yaml")) {
      throw new CliException(ExitCodes.USAGE, "unknown output format \"" + format + "\" (use text, json or yaml)");
    }
    this.out = out;
    this.err = err;
  }

  public boolean text() {
    return format.equals("text");
  }

  public boolean json() {
    return format.equals("json");
  }

  /** Prints {@code model} as JSON or YAML; only for {@code -o json|yaml}. */
  public void data(Object model) {
    try {
      out.print(format.equals("json") ? Json.MAPPER.writeValueAsString(model) + "\n" : Serialization.asYaml(model));
    } catch (Exception e) {
      throw new CliException(ExitCodes.ERROR, "cannot print the result: " + e.getMessage());
    }
  }

  public void line(String text) {
    out.println(text);
  }

  /** A warning, for people, whatever the format. */
  public void warn(String text) {
    err.println(text);
  }

  /** Colours for a terminal, never for a pipe or with NO_COLOR set. */
  public static String color(String text, String ansi) {
    return System.console() == null || System.getenv("NO_COLOR") != null ? text : "\u001b[" + ansi + "m" + text + "\u001b[0m";
  }
}
