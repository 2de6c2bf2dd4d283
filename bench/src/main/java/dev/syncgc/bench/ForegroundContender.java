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
    KcmMetrics kcm = ctx.kcm();
    double cpu0 = kcm == null ? Double.NaN : kcm.cpuSeconds();
    double requests0 = kcm == null ? Double.NaN : kcm.requests();
    double seconds;
    try (RootWatch watch = new RootWatch(ctx.cluster().client, tree.namespace(), root.name(), root.uid())) {
      watch.awaitPresent();
      long start = System.nanoTime();
      ctx.cluster().api.delete(tree.namespace(), root.name(), root.uid(), "Foreground");
      seconds = Contender.secondsUntilGone(watch, start, ctx.timeout());
    }
    // kube-controller-manager as a whole: on this cluster little else runs in it while the collector works.
    double cpu = kcm == null ? Double.NaN : kcm.cpuSeconds() - cpu0;
    double requests = kcm == null ? Double.NaN : kcm.requests() - requests0;
    return new Measurement(seconds, requests, "", Double.NaN, cpu, Double.NaN, Double.NaN, "ok");
  }
}
