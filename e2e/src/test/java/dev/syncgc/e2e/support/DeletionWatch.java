package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Records, in the order the API server reports them, the DELETED watch events of some kinds in one
 * namespace (or cluster-wide for cluster-scoped kinds). Each watch starts at the resourceVersion of
 * a LIST made when it is added, so nothing deleted after {@link #add} returns is missed.
 *
 * <p>Within one kind and namespace the watch order is the order of the deletions in etcd; across
 * kinds, compare {@link Deletion#resourceVersion()} (one etcd: one revision counter).
 */
public final class DeletionWatch implements AutoCloseable {
  /** One DELETED event; {@code seq} counts events of every kind in arrival order. */
  public record Deletion(String kind, String namespace, String name, String uid, long resourceVersion,
      int seq, Instant receivedAt) {
    @Override
    public String toString() {
      return kind + "/" + (namespace == null ? "" : namespace + "/") + name + "@" + resourceVersion;
    }
  }

  private final KubernetesClient client;
  private final String namespace;
  private final List<Watch> watches = new ArrayList<>();
  private final List<Deletion> deletions = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  private DeletionWatch(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** A watch over {@code namespace}; null for cluster-scoped kinds. Add kinds with {@link #add}. */
  public static DeletionWatch in(KubernetesClient client, String namespace) {
    return new DeletionWatch(client, namespace);
  }

  /** Watches Widgets of {@code namespace} (installs the test CRDs first). */
  public static DeletionWatch widgets(KubernetesClient client, String namespace) {
    TestCrds.install(client);
    return in(client, namespace).add(TestCrds.API_VERSION, "Widget");
  }

  /** Starts watching one more kind, e.g. {@code add("v1", "ConfigMap")}. */
  public DeletionWatch add(String apiVersion, String kind) {
    var resources = client.genericKubernetesResources(apiVersion, kind);
    var scoped = namespace == null ? resources : resources.inNamespace(namespace);
    String listedAt = scoped.list(new ListOptionsBuilder().withLimit(1L).build())
        .getMetadata().getResourceVersion();
    Watch watch = scoped.watch(new ListOptionsBuilder().withResourceVersion(listedAt)
        .withAllowWatchBookmarks(false).build(), new Watcher<GenericKubernetesResource>() {
          @Override
          public void eventReceived(Action action, GenericKubernetesResource object) {
            if (action == Action.DELETED) {
              record(kind, object);
            } else if (action == Action.ERROR) {
              problem("ERROR event for " + kind + ": " + object);
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            problem("watch of " + kind + " closed: " + cause);
          }
        });
    synchronized (this) {
      watches.add(watch);
    }
    return this;
  }

  private synchronized void record(String kind, GenericKubernetesResource object) {
    var m = object.getMetadata();
    deletions.add(new Deletion(kind, m.getNamespace(), m.getName(), m.getUid(),
        Long.parseLong(m.getResourceVersion()), deletions.size(), Instant.now()));
  }

  private synchronized void problem(String text) {
    problems.add(text);
  }

  /** Every deletion seen so far, in arrival order. */
  public synchronized List<Deletion> deletions() {
    return List.copyOf(deletions);
  }

  /** The deletion of the object with this uid, if seen. */
  public synchronized Optional<Deletion> find(String uid) {
    return deletions.stream().filter(d -> d.uid().equals(uid)).findFirst();
  }

  public Optional<Deletion> find(HasMetadata object) {
    return find(object.getMetadata().getUid());
  }

  /** Waits for the DELETED event of {@code object} (matched by uid). */
  public Deletion awaitDeleted(HasMetadata object, Duration deadline) {
    String uid = object.getMetadata().getUid();
    await(object.getKind() + " " + object.getMetadata().getName() + " deleted").atMost(deadline)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> find(uid).isPresent());
    return find(uid).orElseThrow();
  }

  /** Waits until every object listed has been deleted; the failure names (some of) those left. */
  public void awaitDeleted(List<? extends HasMetadata> objects, Duration deadline) {
    try {
      await(objects.size() + " objects deleted").atMost(deadline).pollInterval(Duration.ofMillis(100))
          .until(() -> missing(objects).isEmpty());
    } catch (RuntimeException e) {
      List<String> left = missing(objects);
      throw new AssertionError(left.size() + " of " + objects.size() + " objects not deleted within "
          + deadline + ", e.g. " + left.subList(0, Math.min(20, left.size())) + "; watch problems: "
          + problems(), e);
    }
  }

  /** Names of the objects listed whose deletion has not been seen. */
  public List<String> missing(List<? extends HasMetadata> objects) {
    return objects.stream().filter(o -> find(o).isEmpty()).map(o -> o.getMetadata().getName())
        .collect(Collectors.toList());
  }

  /** Why the watch may have missed events (closed, error events); empty if none. */
  public synchronized List<String> problems() {
    return List.copyOf(problems);
  }

  @Override
  public synchronized void close() {
    watches.forEach(Watch::close);
    watches.clear();
  }
}
