package dev.syncgc.bench;

/**
 * The built-in garbage collector: DELETE of the root with propagationPolicy Foreground, as
 * {@code kubectl delete --cascade=foreground} sends; kube-controller-manager at its default
 * QPS/burst, or raised to syncgc's.
 */
final class ForegroundContender implements Contender {
  private final Kcm.Mode mode;

  ForegroundContender(Kcm.Mode mode) {
    this.mode = mode;
  }

  @Override
  public String id() {
    return mode == Kcm.Mode.DEFAULT ? "foreground" : "foreground-qps";
  }

  @Override
  public String title(double qps, int burst) {
    return mode == Kcm.Mode.DEFAULT ? "foreground, kcm " + Kcm.DEFAULT_QPS
        : "foreground, kcm " + Fmt.num(qps) + "/" + burst;
  }

  @Override
  public Kcm.Mode kcm() {
    return mode;
  }

  @Override
  public Measurement measure(Context ctx, Tree tree) throws InterruptedException {
    Tree.Node root = tree.root();
    try (RootWatch watch = new RootWatch(ctx.cluster().client, tree.namespace(), root.name(), root.uid())) {
      watch.awaitPresent();
      long start = System.nanoTime();
      ctx.cluster().api.delete(tree.namespace(), root.name(), root.uid(), "Foreground");
      double seconds = Contender.secondsUntilGone(watch, start, ctx.timeout());
      return new Measurement(seconds, Double.NaN, "", Double.NaN, "ok");
    }
  }
}
