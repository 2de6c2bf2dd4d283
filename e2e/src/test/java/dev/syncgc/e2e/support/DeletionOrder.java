package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Records the order in which objects disappear, from watches started before the deletion: every
 * DELETED event, with the resourceVersion of the deletion. Each watch starts at the resourceVersion
 * of a LIST made when it is added, so no deletion after {@link #watch} returns can be missed.
 *
 * <p>Deletions are ordered by resourceVersion. Within one watch that is the order of the events;
 * across kinds it relies on resourceVersions being the store's (etcd's) revision, as on every
 * etcd-backed API server. Usage:
 * <pre>{@code
 * try (DeletionOrder order = DeletionOrder.of(TestCrds.widgets(client).inNamespace(ns))) {
 *   ... delete ...
 *   order.awaitDeleted(deadline, "a", "b");
 *   order.assertBefore("b", "a");
 * }
 * }</pre>
 */
public final class DeletionOrder implements AutoCloseable {

  /** One object that disappeared. */
  public record Deletion(String kind, String name, String uid, long resourceVersion, long arrival) {
    @Override
    public String toString() {
      return kind + "/" + name + "@" + resourceVersion;
    }
  }

  private final List<Deletion> deletions = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private long arrivals;

  private DeletionOrder() {}

  /** A recorder watching the objects of one kind (in one namespace, or filtered as given). */
  public static <T extends HasMetadata, L extends KubernetesResourceList<T>> DeletionOrder of(
      FilterWatchListDeletable<T, L, ?> objects) {
    return new DeletionOrder().watch(objects);
  }

  /** Also records deletions of these objects (another kind). */
  public synchronized <T extends HasMetadata, L extends KubernetesResourceList<T>> DeletionOrder watch(
      FilterWatchListDeletable<T, L, ?> objects) {
    String from = objects.list(new ListOptionsBuilder().withLimit(1L).build()).getMetadata()
        .getResourceVersion();
    watches.add(objects.watch(new ListOptionsBuilder().withResourceVersion(from).build(), new Watcher<T>() {
      @Override
      public void eventReceived(Action action, T object) {
        if (action == Action.DELETED) {
          record(object);
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        synchronized (DeletionOrder.this) {
          problems.add("watch closed: " + cause);
        }
      }
    }));
    return this;
  }

  private synchronized void record(HasMetadata object) {
    deletions.add(new Deletion(object.getKind(), object.getMetadata().getName(),
        object.getMetadata().getUid(), Long.parseLong(object.getMetadata().getResourceVersion()),
        arrivals++));
  }

  /** Every deletion seen so far, in the order the store made them. */
  public synchronized List<Deletion> deletions() {
    return deletions.stream().sorted(Comparator.comparingLong(Deletion::resourceVersion)).toList();
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

  /** Waits until every named object was seen deleted. */
  public void awaitDeleted(Duration deadline, String... names) {
    try {
      await("DELETED events for " + Arrays.toString(names)).atMost(deadline)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            checkWatches();
            return hasDeleted(names);
          });
    } catch (RuntimeException e) {
      throw new AssertionError("not all of " + Arrays.toString(names) + " deleted within " + deadline
          + "; deleted so far: " + deletions(), e);
    }
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

  /** Fails if a watch ended with an error (events may have been missed). */
  public synchronized void checkWatches() {
    if (!problems.isEmpty()) {
      throw new AssertionError("deletion order may be incomplete: " + problems);
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
