package dev.syncgc.bench;

import dev.syncgc.kube.RateLimiter;
import java.util.List;

/**
 * The floor: the benchmark deletes every object itself, leaves first (level by level, deepest
 * first; a level's DELETEs in parallel, the next level once all are answered), the root last,
 * through one token bucket with syncgc's QPS/burst, with the DeleteOptions syncgc sends
 * (uid precondition, propagationPolicy Background). No contender that deletes every object can
 * do much better. The unlimited floor has no token bucket: only the pool's threads
 * ({@code --floor-parallelism}) and the API server bound it.
 */
final class FloorContender implements Contender {
  private final boolean unlimited;

  /** @param unlimited no token bucket: as many DELETEs in flight as the pool has threads */
  FloorContender(boolean unlimited) {
    this.unlimited = unlimited;
  }

  @Override
  public String id() {
    return unlimited ? "floor-unlimited" : "floor";
  }

  @Override
  public String title(double qps, int burst) {
    return unlimited ? "floor, no client limit" : "floor, " + Fmt.num(qps) + "/" + burst;
  }

  @Override
  public Measurement measure(Context ctx, Tree tree) throws InterruptedException {
    Tree.Node root = tree.root();
    RateLimiter bucket = unlimited ? RateLimiter.unlimited() : new RateLimiter(ctx.qps(), ctx.burst());
    Api api = ctx.cluster().api;
    try (RootWatch watch = new RootWatch(ctx.cluster().client, tree.namespace(), root.name(), root.uid())) {
      watch.awaitPresent();
      long start = System.nanoTime();
      for (int level = tree.levels().size() - 1; level >= 1; level--) {
        List<Tree.Node> nodes = tree.levels().get(level);
        ctx.deletePool().map(nodes.size(), i -> {
          bucket.acquire();
          return api.delete(tree.namespace(), nodes.get(i).name(), nodes.get(i).uid(), "Background");
        });
      }
      bucket.acquire();
      api.delete(tree.namespace(), root.name(), root.uid(), "Background");
      double seconds = Contender.secondsUntilGone(watch, start, ctx.timeout());
      return new Measurement(seconds, tree.objects(), "delete=" + tree.objects(), Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, "ok");
    }
  }
}
