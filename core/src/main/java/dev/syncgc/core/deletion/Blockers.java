package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The dependents an owner still waits for, named with why each is still there, for Events. */
final class Blockers {
  private Blockers() {}

  /**
   * At most {@link DeletionPlanner#MAX_BLOCKERS_REPORTED} of {@code dependents}, in order.
   *
   * @param usersOf each dependent's users (SPEC "In use"), as the plan worked them out
   */
  static List<Blocker> of(DependencyGraph graph, List<ObjectMetadata> dependents, Function<String, String> lastFailure,
      Function<ObjectMetadata, List<ObjectMetadata>> usersOf) {
    List<Blocker> result = new ArrayList<>();
    for (ObjectMetadata d : dependents) {
      if (result.size() == DeletionPlanner.MAX_BLOCKERS_REPORTED) {
        break;
      }
      result.add(new Blocker(d.ref(), why(graph, d, lastFailure.apply(d.uid()), usersOf.apply(d))));
    }
    return result;
  }

  /** Why a dependent is still in the store, in words for an Event. */
  private static String why(DependencyGraph graph, ObjectMetadata d, String failure, List<ObjectMetadata> users) {
    List<String> reasons = new ArrayList<>();
    if (failure != null) {
      reasons.add(failure);
    }
    if (!users.isEmpty()) { // SPEC "In use": it waits for its users first
      reasons.add("in use by " + users.stream().limit(3).map(u -> u.ref().toString()).collect(Collectors.joining(", "))
          + (users.size() > 3 ? " and " + (users.size() - 3) + " more" : "") + " (" + Names.USES + ")");
    }
    if (!d.beingDeleted()) {
      if (!users.isEmpty()) {
        return String.join("; ", reasons);
      }
      reasons.add(failure == null ? "deletion requested" : "not deleted");
      return String.join("; ", reasons);
    }
    List<String> others = new ArrayList<>(d.finalizers());
    others.remove(Names.FINALIZER);
    if (!others.isEmpty()) {
      reasons.add("held by finalizers " + others);
    }
    if (d.deletionGracePeriodSeconds() != null && d.deletionGracePeriodSeconds() > 0) {
      reasons.add("graceful termination pending (grace period " + d.deletionGracePeriodSeconds() + "s)");
    }
    if (d.hasFinalizer(Names.FINALIZER)) {
      int below = graph.dependentsOf(d.uid()).size();
      reasons.add("waiting for " + below + " dependent" + (below == 1 ? "" : "s") + " of its own");
    }
    if (reasons.isEmpty()) {
      reasons.add("being deleted");
    }
    return String.join("; ", reasons);
  }
}
