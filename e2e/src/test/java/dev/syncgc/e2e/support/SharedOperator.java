package dev.syncgc.e2e.support;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one operator most tests share: started on first use and left running for the whole test JVM.
 * A test class that needs it running is annotated {@code @ExtendWith(SharedOperator.Extension.class)}.
 * A test that needs the operator to itself (to kill it, or to run it with other flags) calls
 * {@link #pause()} first and {@link #resume()} after, so that two operators never act at once.
 */
public final class SharedOperator {
  /** Flags that make Events quick to appear in tests; everything else is the operator's default. */
  public static final String[] ARGS = {"--waiting-event-interval", "5s", "--recheck-interval", "5s"};
  private static OperatorProcess operator;

  private SharedOperator() {}

  public static synchronized OperatorProcess get() {
    if (operator == null) {
      operator = OperatorProcess.startReady("shared", ARGS);
    } else if (!operator.isAlive()) {
      operator.start();
      operator.awaitReady();
    }
    return operator;
  }

  public static synchronized void pause() {
    if (operator != null && operator.isAlive()) {
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
