package dev.syncgc.cli;

/** What {@code kubectl syncgc} exits with, for scripts (also listed by {@code --help}). */
public final class ExitCodes {
  public static final int OK = 0;
  /** A wrong flag or argument. */
  public static final int USAGE = 1;
  /** The kind or the object does not exist. */
  public static final int NOT_FOUND = 2;
  /** The cluster refused a request (RBAC). */
  public static final int FORBIDDEN = 3;
  /** No cluster: no kubeconfig, or the API server cannot be reached. */
  public static final int NO_CLUSTER = 4;
  /** Anything else. */
  public static final int ERROR = 5;
  /**
   * {@code delete}: the object's deadline released it with dependents left (the operator's
   * {@code SynchronousDeletionTimedOut} Event); the rest goes on without it.
   */
  public static final int TIMED_OUT = 6;

  static final String HELP = "Exit codes: 0 ok, 1 usage, 2 kind or object not found, 3 forbidden, 4 no cluster,"
      + " 5 other error, 6 delete: released at its deadline with dependents left.";

  private ExitCodes() {}
}
