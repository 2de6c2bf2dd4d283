package dev.syncgc.cli;

/** A failure the user can act on: one line on stderr (what went wrong and what to do) and an exit code. */
public final class CliException extends RuntimeException {
  private final int exitCode;

  public CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
