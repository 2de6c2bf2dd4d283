package dev.syncgc.e2e.support;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one operator most tests share: a JVM started on first use and left running for the whole test
 * JVM, or, with {@code SYNCGC_E2E_OPERATOR=chart}, the chart's in-cluster Deployment (kind).
 * A test class that needs it running is annotated {@code @ExtendWith(SharedOperator.Extension.class)}.
 * A test that needs the operator to itself (to kill it, or to run it with other flags) calls
 * {@link #pause()} first and {@link #resume()} after, so that two operators never act at once
 * (in-cluster: the Deployment is scaled to 0 and back).
 */
public final class SharedOperator {
  /**
   * Flags that make Events quick to appear in tests; everything else is the operator's default.
   * The in-cluster operator gets the same from e2e/kind/e2e-values.yaml.
   */
  public static final String[] ARGS = {"--waiting-event-interval", "5s", "--recheck-interval", "5s"};
  private static OperatorProcess operator;
  private static InClusterOperator inCluster;
  private static boolean inClusterPaused;

  private SharedOperator() {}

  public static synchronized RunningOperator get() {
    if (InClusterOperator.selected()) {
      if (inCluster == null) {
        inCluster = new InClusterOperator(TestCluster.get().client());
        inClusterPaused = true; // first use: make sure it runs, whatever the last run left
      }
      if (inClusterPaused) {
        inCluster.scaleAndAwait(1);
        inClusterPaused = false;
      }
      return inCluster;
    }
    if (operator == null) {
      operator = OperatorProcess.startReady("shared", ARGS);
    } else if (!operator.isAlive()) {
      operator.start();
      operator.awaitReady();
    }
    return operator;
  }

  public static synchronized void pause() {
    if (InClusterOperator.selected()) {
      if (inCluster == null) {
        inCluster = new InClusterOperator(TestCluster.get().client());
      }
      inCluster.scaleAndAwait(0);
      inClusterPaused = true;
    } else if (operator != null && operator.isAlive()) {
      operator.stop();
    }
  }

  public static synchronized void resume() {
    get();
  }

  /** Gets the shared operator running (and ready) before the first test of the class. */
  public static final class Extension implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
      get();
    }
  }
}
