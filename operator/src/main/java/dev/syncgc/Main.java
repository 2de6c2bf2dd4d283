package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import picocli.CommandLine;

/** Entry point of the operator jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    int code = new CommandLine(new OperatorConfig()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }
}
