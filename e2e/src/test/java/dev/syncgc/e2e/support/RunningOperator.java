package dev.syncgc.e2e.support;

/**
 * An operator the tests observe: a JVM started by the tests ({@link OperatorProcess}) or the Pod of
 * the chart's Deployment ({@link InClusterOperator}, when the suite runs against kind).
 */
public interface RunningOperator {
  /** Everything it has logged so far (for a Pod: its current container's log). */
  String log();

  /** True while it runs. */
  boolean isAlive();

  /** The status code of {@code GET path} on its HTTP port, -1 when nothing answers. */
  int status(String path);

  /** The body of {@code GET /metrics}. */
  String metrics();
}
