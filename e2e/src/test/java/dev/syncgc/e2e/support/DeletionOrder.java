package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Records the order in which objects disappear, from watches started before the deletion: every
 * DELETED event, with the resourceVersion of the deletion. Each watch starts at the resourceVersion
 * of a LIST made when it is added, so no deletion after {@link #watch} returns can be missed.
 *
 * <p>Deletions are ordered by resourceVersion. Within one watch that is the order of the events;
 * across kinds it relies on resourceVersions being the store's (etcd's) revision, as on every
 * etcd-backed API server. Objects are named by name ({@link #awaitDeleted(Duration, String...)},
 * {@link #assertBefore}) or, where names repeat across kinds or namespaces, by uid
 * ({@link #awaitDeleted(Duration, HasMetadata)}, {@link #find(HasMetadata)}). Usage:
 * <pre>{@code
 * try (DeletionOrder order = DeletionOrder.widgets(client, ns)) {
 *   ... delete ...
 *   order.awaitDeleted(deadline, "a", "b");
 *   order.assertBefore("b", "a");
 * }
 * }</pre>
 */
public final class DeletionOrder implements AutoCloseable {

  /** One object that disappeared; {@code seq} numbers the DELETED events of all watches as they came. */
  public record Deletion(String kind, String namespace, String name, String uid, long resourceVersion,
      int seq, Instant receivedAt) {
    @Override
    public String toString() {
      return kind + "/" + (namespace == null ? "" : namespace + "/") + name + "@" + resourceVersion;
    }
  }

  private final List<Deletion> deletions = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  private DeletionOrder() {}

  /** A recorder watching the objects of one kind (in one namespace, or filtered as given). */
  public static <T extends HasMetadata, L extends KubernetesResourceList<T>> DeletionOrder of(
      FilterWatchListDeletable<T, L, ?> objects) {
    return new DeletionOrder().watch(objects);
  }

  /** A recorder watching the Widgets of {@code namespace} (installs the test CRDs first). */
  public static DeletionOrder widgets(KubernetesClient client, String namespace) {
    TestCrds.install(client);
    return of(TestCrds.widgets(client).inNamespace(namespace));
  }

  /** Also records deletions of these objects (another kind). */
  public synchronized <T extends HasMetadata, L extends KubernetesResourceList<T>> DeletionOrder watch(
      FilterWatchListDeletable<T, L, ?> objects) {
    String from = objects.list(new ListOptionsBuilder().withLimit(1L).build()).getMetadata()
        .getResourceVersion();
    watches.add(objects.watch(new ListOptionsBuilder().withResourceVersion(from)
        .withAllowWatchBookmarks(false).build(), new Watcher<T>() {
          @Override
          public void eventReceived(Action action, T object) {
            if (action == Action.DELETED) {
              record(object);
            } else if (action == Action.ERROR) {
              problem("ERROR event: " + object);
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            problem("watch closed: " + cause);
          }
        }));
    return this;
  }

  private synchronized void record(HasMetadata object) {
    var m = object.getMetadata();
    deletions.add(new Deletion(object.getKind(), m.getNamespace(), m.getName(), m.getUid(),
        Long.parseLong(m.getResourceVersion()), deletions.size(), Instant.now()));
  }

  private synchronized void problem(String text) {
    problems.add(text);
  }

  /** Every deletion seen so far, in the order the store made them. */
  public synchronized List<Deletion> deletions() {
    return deletions.stream().sorted(Comparator.comparingLong(Deletion::resourceVersion)).toList();
  }

  /** Every deletion seen so far, in the order the watches delivered them. */
  public synchronized List<Deletion> arrivals() {
    return List.copyOf(deletions);
  }

  /** The names of the deleted objects, in order. */
  public List<String> names() {
    return deletions().stream().map(Deletion::name).toList();
  }

  /** How many DELETED events named this object. */
  public synchronized long count(String name) {
    return deletions.stream().filter(d -> d.name().equals(name)).count();
  }

  public synchronized boolean hasDeleted(String... names) {
    return Arrays.stream(names).allMatch(n -> deletions.stream().anyMatch(d -> d.name().equals(n)));
  }

  /** The deletion of the object with this uid, if seen. */
  public synchronized Optional<Deletion> find(String uid) {
    return deletions.stream().filter(d -> d.uid().equals(uid)).findFirst();
  }

  public Optional<Deletion> find(HasMetadata object) {
    return find(object.getMetadata().getUid());
  }

  /** Names of the objects listed whose deletion (by uid) has not been seen. */
  public List<String> missing(List<? extends HasMetadata> objects) {
    return objects.stream().filter(o -> find(o).isEmpty()).map(o -> o.getMetadata().getName()).toList();
  }

  /** Waits until every named object was seen deleted. */
  public void awaitDeleted(Duration deadline, String... names) {
    awaitSeen("DELETED events for " + Arrays.toString(names), deadline, () -> hasDeleted(names),
        () -> "not all of " + Arrays.toString(names) + " deleted");
  }

  /** Waits for the DELETED event of {@code object} (matched by uid) and returns it. */
  public Deletion awaitDeleted(Duration deadline, HasMetadata object) {
    String what = object.getKind() + " " + object.getMetadata().getName();
    awaitSeen(what + " deleted", deadline, () -> find(object).isPresent(), () -> what + " not deleted");
    return find(object).orElseThrow();
  }

  /** Waits until every object listed (matched by uid) was seen deleted. */
  public void awaitDeleted(Duration deadline, List<? extends HasMetadata> objects) {
    awaitSeen(objects.size() + " objects deleted", deadline, () -> missing(objects).isEmpty(), () -> {
      List<String> left = missing(objects);
      return left.size() + " of " + objects.size() + " objects not deleted, e.g. "
          + left.subList(0, Math.min(20, left.size()));
    });
  }

  /** The position (0-based) of the object's deletion in the order; fails if it was not seen once. */
  public int position(String name) {
    List<Deletion> all = deletions();
    int found = -1;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).name().equals(name)) {
        if (found >= 0) {
          throw new AssertionError(name + " deleted more than once: " + all);
        }
        found = i;
      }
    }
    if (found < 0) {
      throw new AssertionError(name + " was not seen deleted: " + all);
    }
    return found;
  }

  /** Asserts that {@code first} disappeared before {@code then}. */
  public void assertBefore(String first, String then) {
    if (position(first) >= position(then)) {
      throw new AssertionError(first + " should be deleted before " + then + "; order: " + deletions());
    }
  }

  /** Why a watch may have missed events (closed, error events); empty if none. */
  public synchronized List<String> problems() {
    return List.copyOf(problems);
  }

  /** Fails if a watch ended with an error or reported one (events may have been missed). */
  public synchronized void checkWatches() {
    if (!problems.isEmpty()) {
      throw new AssertionError("deletion order may be incomplete: " + problems);
    }
  }

  /** Polls {@code seen} (failing at once should a watch break); on timeout fails with {@code missed}. */
  private void awaitSeen(String what, Duration deadline, Callable<Boolean> seen,
      java.util.function.Supplier<String> missed) {
    try {
      await(what).atMost(deadline).pollInterval(Duration.ofMillis(50))
          .until(() -> {
            checkWatches();
            return seen.call();
          });
    } catch (RuntimeException e) {
      throw new AssertionError(missed.get() + " within " + deadline + "; deleted so far: "
          + deletions() + "; watch problems: " + problems(), e);
    }
  }

  @Override
  public void close() {
    List<Watch> open;
    synchronized (this) {
      open = List.copyOf(watches);
      watches.clear();
    }
    open.forEach(Watch::close);
  }
}
