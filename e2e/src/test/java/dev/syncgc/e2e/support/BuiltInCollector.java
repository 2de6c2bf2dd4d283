package dev.syncgc.e2e.support;

import org.junit.jupiter.api.Assumptions;

/**
 * For tests whose claim needs kube-controller-manager's garbage collector ({@code kubectl delete
 * --cascade=orphan} relies on its orphaning, {@code --cascade=foreground} and a hand-over to
 * foreground deletion on its {@code foregroundDeletion} finalizer: only the collector removes
 * those): skipped, saying why, when the control plane runs without it ({@code make e2e-nogc},
 * {@link TestCluster#builtInCollector()}).
 */
public final class BuiltInCollector {
  private BuiltInCollector() {}

  /** @param needs what of the collector the test needs, for the skip message */
  public static void assumeRunning(String needs) {
    boolean on = TestCluster.get().builtInCollector();
    String why = "kube-controller-manager runs without its garbage collector (" + TestCluster.NO_KCM_GC
        + "=1), and this test needs it: " + needs;
    if (!on) {
      System.out.println("[no-gc] skipped " + caller() + ": " + why);
    }
    Assumptions.assumeTrue(on, why);
  }

  private static String caller() {
    StackTraceElement e = StackWalker.getInstance().walk(s -> s.skip(2).findFirst()).map(f -> f.toStackTraceElement())
        .orElse(null);
    return e == null ? "a test" : e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "#"
        + e.getMethodName();
  }
}
