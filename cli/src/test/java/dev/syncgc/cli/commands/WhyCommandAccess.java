package dev.syncgc.cli.commands;

/** Test access to {@link WhyCommand}'s package-private helpers. */
public final class WhyCommandAccess {
  private WhyCommandAccess() {}

  public static String holder(String finalizer) {
    return WhyCommand.holder(finalizer);
  }
}
