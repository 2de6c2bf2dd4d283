package dev.syncgc.bench;

import dev.syncgc.core.model.Names;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The same cascade done by syncgc and by kube-controller-manager, for their CPU per deleted object: every
 * owner of one namespace of the scale run deleted at once, timed until the namespace holds no bench item.
 */
final class Cascade {
  private static final Logger log = LoggerFactory.getLogger(Cascade.class);
  private static final long TIMEOUT_SECONDS = 1800;

  interface Sink {
    void add(String figure, int repetition, double value);
  }

  private Cascade() {}

  /**
   * Owners annotated Synchronous; once each carries syncgc's finalizer, a plain DELETE of each. Figures
   * named cascade_WHO_...
   */
  static void bySyncgc(Cluster cluster, Parallel pool, SyncgcProcess syncgc, String ns, String who, Sink out)
      throws InterruptedException {
    List<GenericKubernetesResource> owners = owners(cluster, ns);
    var items = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT).inNamespace(ns);
    pool.map(owners.size(), i -> items.withName(owners.get(i).getMetadata().getName())
        .edit(r -> {
          Map<String, String> a = annotations(r);
          a.put(Names.PROPAGATION, "Synchronous");
          r.getMetadata().setAnnotations(a);
          return r;
        }));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (true) {
      long marked = items.list().getItems().stream().filter(r -> r.getMetadata().getOwnerReferences().isEmpty()
          && r.getMetadata().getFinalizers().contains(Names.FINALIZER)).count();
      if (marked == owners.size()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("syncgc put its finalizer on " + marked + " of " + owners.size()
            + " owners in " + ns + " within 300 s");
      }
      Thread.sleep(500);
    }
    long objects = cluster.remainingItems(ns);
    double cpu0 = syncgc.cpuSeconds();
    double requests0 = syncgc.apiRequests();
    double seconds = deleteAll(cluster, pool, ns, owners, "Background");
    Thread.sleep(1000); // requests that trail the last release (Events)
    double cpu = syncgc.cpuSeconds() - cpu0;
    double requests = syncgc.apiRequests() - requests0;
    report(out, who, ns, objects, seconds, cpu, requests);
  }

  /** Each owner deleted with propagationPolicy Foreground: kube-controller-manager's collector does the rest. */
  static void byKcm(Cluster cluster, Parallel pool, KcmMetrics kcm, String ns, Sink out) throws InterruptedException {
    List<GenericKubernetesResource> owners = owners(cluster, ns);
    long objects = cluster.remainingItems(ns);
    double cpu0 = kcm.cpuSeconds();
    double requests0 = kcm.requests();
    double seconds = deleteAll(cluster, pool, ns, owners, "Foreground");
    Thread.sleep(1000);
    double cpu = kcm.cpuSeconds() - cpu0;
    double requests = kcm.requests() - requests0;
    report(out, "kcm", ns, objects, seconds, cpu, requests);
  }

  private static void report(Sink out, String who, String ns, long objects, double seconds, double cpu,
      double requests) {
    out.add("cascade_" + who + "_objects", 0, objects);
    out.add("cascade_" + who + "_seconds", 0, seconds);
    out.add("cascade_" + who + "_cpu_per_1000", 0, cpu * 1000 / objects);
    out.add("cascade_" + who + "_requests_per_object", 0, requests / objects);
    log.info("cascade by {} in {}: {} objects in {}, CPU {} ({} s per 1,000 objects), {} requests", who, ns,
        Fmt.count(objects), Fmt.seconds(seconds), Fmt.seconds(cpu), Fmt.plain(cpu * 1000 / objects, 2),
        Fmt.count(requests));
  }

  private static List<GenericKubernetesResource> owners(Cluster cluster, String ns) {
    List<GenericKubernetesResource> owners = cluster.client.genericKubernetesResources(BenchCrd.CONTEXT)
        .inNamespace(ns).list().getItems().stream().filter(r -> r.getMetadata().getOwnerReferences().isEmpty())
        .toList();
    if (owners.isEmpty()) {
      throw new IllegalStateException("no owners in " + ns + " to delete");
    }
    return owners;
  }

  /** Seconds from the first DELETE until the namespace holds no bench item. */
  private static double deleteAll(Cluster cluster, Parallel pool, String ns, List<GenericKubernetesResource> owners,
      String propagation) throws InterruptedException {
    long start = System.nanoTime();
    pool.map(owners.size(), i -> cluster.api.delete(ns, owners.get(i).getMetadata().getName(),
        owners.get(i).getMetadata().getUid(), propagation));
    long deadline = start + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (cluster.remainingItems(ns) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(ns + " still holds " + cluster.remainingItems(ns) + " bench items "
            + TIMEOUT_SECONDS + " s after its owners were deleted (" + propagation + ")");
      }
      Thread.sleep(200);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static Map<String, String> annotations(GenericKubernetesResource r) {
    return r.getMetadata().getAnnotations() == null ? new HashMap<>() : r.getMetadata().getAnnotations();
  }
}
