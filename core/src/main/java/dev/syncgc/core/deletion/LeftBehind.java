package dev.syncgc.core.deletion;

import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.graph.OwnerState;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import java.util.List;

/**
 * SPEC "Cycles and timeouts": what an owner released at its Release deadline left behind (a
 * dependent whose DELETE was still refused, marked {@link Names#LEFT_BEHIND_BY}) is still deleted
 * afterwards, by syncgc itself, as the built-in collector deletes an object whose owners are all
 * gone: only once every owner it names is absent (a valid reference to an owner of a tracked kind
 * that the graph does not hold: one it cannot see counts as keeping), and, unless its DELETE only
 * marks it (it carries syncgc's finalizer), no user holds it. One annotated {@link Names#KEEP} since stays.
 */
public final class LeftBehind {
  private LeftBehind() {}

  /** Why the object must stay for now, or null when it may be deleted (after a live look at its owners). */
  public static String keeper(DependencyGraph graph, ObjectMetadata object) {
    if (object.annotation(Names.LEFT_BEHIND_BY) == null || object.beingDeleted()) {
      return "not left behind";
    }
    if (DeletionSettings.fromAnnotations(object.annotations()).keep()) {
      return "it is kept (" + Names.KEEP + ")"; // kept since it was left behind: never deleted through its owner
    }
    if (object.owners().isEmpty()) {
      return "it has no owner reference any more"; // its owners were removed: nobody's garbage
    }
    for (OwnerLink link : object.owners()) {
      if (graph.validity(object, link) != LinkValidity.VALID) {
        return "its owner reference to " + link.kind() + "/" + link.name() + " is not valid";
      }
      if (graph.ownerState(link) != OwnerState.ABSENT) {
        return "its owner " + link.kind() + "/" + link.name() + " exists or cannot be seen";
      }
    }
    if (!object.hasFinalizer(Names.FINALIZER)) {
      List<ObjectMetadata> users = InUse.users(graph, object);
      if (!users.isEmpty()) {
        return "in use by " + users.get(0).ref();
      }
    }
    return null;
  }
}
