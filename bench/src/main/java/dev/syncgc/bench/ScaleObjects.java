package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tracked objects of a {@code scale} run: bench items spread over the namespaces
 * {@code syncgc-bench-scale-0..n-1}, owners with {@code dependents} dependents each; created, or those
 * a {@code --keep} run left, counted.
 */
final class ScaleObjects {
  private static final Logger log = LoggerFactory.getLogger(ScaleObjects.class);
  private static final String NAMESPACE = "syncgc-bench-scale-";

  private final Cluster cluster;
  private final int objects;
  private final int namespaces;
  private final int dependents;

  ScaleObjects(Cluster cluster, int objects, int namespaces, int dependents) {
    this.cluster = cluster;
    this.objects = objects;
    this.namespaces = namespaces;
    this.dependents = dependents;
  }

  /** Owners first (all namespaces), then their dependents; returns how many objects were created. */
  int create(Parallel pool) {
    int perNamespace = (int) Math.ceil(objects / (double) namespaces);
    int ownersPerNamespace = (int) Math.ceil(perNamespace / (double) (dependents + 1));
    List<String> nss = new ArrayList<>();
    for (int n = 0; n < namespaces; n++) {
      String ns = NAMESPACE + n;
      cluster.createNamespace(ns, ScaleCommand.RUN);
      nss.add(ns);
    }
    AtomicInteger done = new AtomicInteger();
    int step = Math.max(1, objects / 10);
    Runnable progress = () -> {
      int d = done.incrementAndGet();
      if (d % step == 0) {
        log.info("created {} of {}", Fmt.count(d), Fmt.count(objects));
      }
    };
    int owners = ownersPerNamespace * namespaces;
    List<String> ownerUids = pool.map(owners, i -> {
      String uid = cluster.api.create(BenchCrd.item(nss.get(i % namespaces), "o-" + i / namespaces, List.of(),
          Map.of(), Map.of(), i));
      progress.run();
      return uid;
    });
    int remaining = objects - owners;
    pool.map(Math.max(0, remaining), i -> {
      int owner = (i / dependents) % owners; // owner index: namespace owner % namespaces, name o-(owner / namespaces)
      String ns = nss.get(owner % namespaces);
      String ownerName = "o-" + owner / namespaces;
      cluster.api.create(BenchCrd.item(ns, "d-" + i, List.of(BenchCrd.owner(ownerName, ownerUids.get(owner))),
          Map.of(), Map.of(), i));
      progress.run();
      return null;
    });
    return Math.max(objects, owners);
  }

  /** The bench items a `--keep` run left in the scale namespaces. */
  int existing() {
    long n = 0;
    for (int i = 0; i < namespaces; i++) {
      n += cluster.remainingItems(NAMESPACE + i);
    }
    if (n == 0) {
      throw new IllegalStateException("--reuse: no bench items in " + NAMESPACE + "0.." + (namespaces - 1)
          + "; run `scale --keep` with the same --namespaces first");
    }
    return Math.toIntExact(n);
  }
}
