package dev.syncgc.core.deletion;

import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.SettingsInForce;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Whether a call a plan decided on still stands on the graph as it is when the call is sent (SPEC
 * "Synchronous deletion", step 2: every DELETE rests on facts checked when it is sent). A plan's calls
 * go out for up to seconds after it was made; meanwhile the owner may have been asked to orphan (the
 * {@code orphan} finalizer), switched to {@code Orphan} or {@code Background}, or let go, and a
 * dependent may have gained a solid owner (one the graph saw arrive, a ring member adopted). The
 * check reads only the owner's and the dependent's own entries (and the dependent's ring when another
 * owner of it is in the graph), so it is cheap enough for every call.
 */
public final class SendCheck {
  private final DependencyGraph graph;
  private final Function<ObjectMetadata, SettingsInForce> inForce;
  private final Predicate<ObjectMetadata> cascades;

  /** @param inForce any object's settings in force, as the plan was made with */
  public SendCheck(DependencyGraph graph, Function<ObjectMetadata, SettingsInForce> inForce) {
    this(graph, inForce, o -> inForce.apply(o).cascades());
  }

  /**
   * @param inForce any object's settings in force, as the plan was made with
   * @param cascades whether an object's propagation in force is {@code Synchronous}, as {@code inForce} tells
   *     it ({@link SettingsInForce#cascades(Function)}: asked before every call, it needs the owner alone)
   */
  public SendCheck(DependencyGraph graph, Function<ObjectMetadata, SettingsInForce> inForce,
      Predicate<ObjectMetadata> cascades) {
    this.graph = graph;
    this.inForce = inForce;
    this.cascades = cascades;
  }

  /**
   * Why the owner's deletion no longer deletes dependents, or null while it still does. The owner is
   * judged on the graph's version of it, or on the planned one if the graph has never held it.
   */
  public String ownerStopped(ObjectMetadata planned) {
    ObjectMetadata owner = graph.get(planned.uid());
    if (owner == null) {
      if (graph.seenDeleted(planned.uid())) {
        return "the owner is gone";
      }
      owner = planned;
    }
    if (owner.hasFinalizer(Names.ORPHAN_FINALIZER)) {
      return "the owner's dependents are to be orphaned (a later orphan request)";
    }
    if (!owner.hasFinalizer(Names.FINALIZER)) {
      return "the owner was let go";
    }
    if (!cascades.test(owner)) {
      return "the owner's propagation in force is no longer Synchronous";
    }
    return null;
  }

  /**
   * Why deleting {@code planned} (a dependent of {@code owner} the plan chose to delete) no longer
   * stands, or null while it does: it no longer names the owner, it is kept itself now, or another owner
   * keeps it now (a solid owner, or one the same cascade is about to delete, as the planner judges). Judged on the
   * graph's version of the dependent, or the planned one if the graph has never held it; one the graph
   * saw deleted needs no call either, which is the caller's to tell.
   */
  public String dependentKept(ObjectMetadata owner, ObjectMetadata planned) {
    if (planned.uid().equals(owner.uid())) {
      return null; // an owner owning itself goes with itself
    }
    ObjectMetadata d = graph.get(planned.uid());
    d = d != null ? d : planned;
    if (d.owners().stream().noneMatch(l -> l.uid().equals(owner.uid()))) {
      return "it no longer names the owner";
    }
    Function<ObjectMetadata, SettingsInForce> once = DeletionPlanner.oncePerObject(inForce);
    Keepers.Keeper keeper = new Keepers(graph, o -> once.apply(o).wave(), o -> once.apply(o).cascades(),
        o -> once.apply(o).keep()).otherKeeper(d, owner.uid());
    return switch (keeper) {
      case NONE -> null;
      case KEPT -> "it is kept (" + Names.KEEP + " or its policy's keep)";
      case SOLID -> "another owner keeps it now";
      case DOOMED -> "another owner, about to be deleted by a cascade, keeps it now";
    };
  }

  /**
   * Why deleting {@code planned} no longer stands because a user of it appeared since the plan (SPEC
   * "In use": a used object is deleted only after every user of it is gone), or null. {@code seen}:
   * the users the plan saw and let it go despite ({@link Step.DeleteDependent#users()}; null: usage
   * not looked at). A DELETE that only marks the object (it carries syncgc's finalizer, or gets it
   * first) removes nothing: its own hold keeps it while the user is there.
   */
  public String userAppeared(ObjectMetadata planned, java.util.Set<String> seen, boolean finalizeFirst) {
    if (seen == null || finalizeFirst) {
      return null;
    }
    ObjectMetadata d = graph.get(planned.uid());
    d = d != null ? d : planned;
    if (d.hasFinalizer(Names.FINALIZER)) {
      return null;
    }
    for (ObjectMetadata user : InUse.users(graph, d)) {
      if (!seen.contains(user.uid())) {
        return "a user appeared since the plan: " + user.ref();
      }
    }
    return null;
  }
}
