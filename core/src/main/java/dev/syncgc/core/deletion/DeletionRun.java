package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A whole deletion played through the planner on a graph, with no API server: the planner's steps
 * are applied as the API server would apply them (a DELETE marks the object, or removes it when no
 * finalizer holds it; the last finalizer released removes it) and every owner under synchronous
 * deletion is planned again, until nothing changes. {@code kubectl syncgc preview} shows what such a
 * run deletes, and the property tests judge the planner by it: the preview is the operator's own
 * decisions, not a second copy of the rules.
 */
public final class DeletionRun {
  /** What a run reports as it goes. */
  public interface Listener {
    /** Called before the steps are applied, with the objects as the planner saw them. */
    default void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {}

    /** @param unit the objects released together with it (a ring), itself included */
    default void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
        Map<String, ObjectMetadata> after) {}

    /** {@code dependent} survives: its reference to {@code ownerUid} is removed, another owner keeps it. */
    default void referenceDropped(ObjectMetadata dependent, String ownerUid) {}

    /** A ring is released as a unit. */
    default void ringReleased(List<ObjectRef> path) {}
  }

  private final DeletionPlanner planner;
  private final DependencyGraph graph;
  private final Function<ObjectMetadata, SettingsInForce> inForce;
  private final Instant now;
  private final Listener listener;
  private final Map<String, ObjectMetadata> objects = new LinkedHashMap<>();
  private final List<String> removed = new ArrayList<>();
  private long version;
  private Set<String> unit = Set.of();

  /**
   * @param graph an empty graph, which the run fills with {@code world} and then changes
   * @param settingsOf an object's effective settings (its annotations, else the policy deciding)
   */
  public DeletionRun(DeletionPlanner planner, DependencyGraph graph, List<ObjectMetadata> world,
      Function<ObjectMetadata, DeletionSettings> settingsOf, Instant now, Listener listener) {
    this.planner = planner;
    this.graph = graph;
    this.inForce = SettingsInForce.resolver(settingsOf, objects::get);
    graph.usersFrom(o -> inForce.apply(o).usersFrom()); // with the policies, as the operator's graph
    this.now = now;
    this.listener = listener;
    this.version = world.stream().mapToLong(ObjectMetadata::resourceVersion).max().orElse(0) + 1;
    world.forEach(this::put);
  }

  public Map<String, ObjectMetadata> objects() {
    return Map.copyOf(objects);
  }

  /** The uids removed, in the order they went. */
  public List<String> removed() {
    return List.copyOf(removed);
  }

  /** The user deletes an object that carries (or is given) the syncgc finalizer. */
  public void delete(String uid) {
    ObjectMetadata o = objects.get(uid);
    List<String> finalizers = new ArrayList<>(o.finalizers());
    if (!finalizers.contains(Names.FINALIZER)) {
      finalizers.add(Names.FINALIZER);
    }
    put(with(o, o.owners(), finalizers, true, o.annotations()));
  }

  /** Other controllers let go of what they hold (their finalizers on objects being deleted, or all). */
  public void releaseForeignFinalizers(boolean onlyBeingDeleted) {
    for (ObjectMetadata o : List.copyOf(objects.values())) {
      if (!onlyBeingDeleted || o.beingDeleted()) {
        List<String> finalizers = new ArrayList<>(o.finalizers());
        if (finalizers.retainAll(List.of(Names.FINALIZER))) {
          put(with(o, o.owners(), finalizers, o.beingDeleted(), o.annotations()));
        }
      }
    }
  }

  /** Plans every owner under deletion by syncgc until nothing changes; false if it never settles. */
  public boolean run(int maxPasses) {
    for (int pass = 0; pass < maxPasses; pass++) {
      Map<String, ObjectMetadata> before = Map.copyOf(objects);
      for (ObjectMetadata o : List.copyOf(objects.values())) {
        ObjectMetadata owner = objects.get(o.uid());
        if (owner != null && owner.beingDeleted() && owner.hasFinalizer(Names.FINALIZER)) {
          List<Step> steps = planner.plan(graph, owner, inForce.apply(owner), now, uid -> null, List.of(), inForce);
          listener.planned(owner, steps, Map.copyOf(objects));
          steps.forEach(step -> apply(owner.uid(), step));
        }
      }
      if (before.equals(objects)) {
        return true;
      }
    }
    return false;
  }

  private void apply(String ownerUid, Step step) {
    if (step instanceof Step.Start start) {
      annotate(ownerUid, start.annotations());
    } else if (step instanceof Step.DropReference drop) {
      ObjectMetadata d = objects.get(drop.dependent().uid());
      if (d != null) {
        listener.referenceDropped(d, drop.ownerUid());
        List<OwnerLink> owners = d.owners().stream().filter(l -> !l.uid().equals(drop.ownerUid())).toList();
        put(with(d, owners, d.finalizers(), d.beingDeleted(), d.annotations()));
      }
    } else if (step instanceof Step.DeleteDependent delete) {
      ObjectMetadata d = objects.get(delete.dependent().uid());
      if (d != null && !d.beingDeleted()) {
        List<String> finalizers = new ArrayList<>(d.finalizers());
        Map<String, String> annotations = new LinkedHashMap<>(d.annotations());
        if (delete.finalizeFirst()) {
          finalizers.add(Names.FINALIZER);
          annotations.putAll(delete.cascade().marks());
        }
        put(with(d, d.owners(), finalizers, true, annotations));
      }
    } else if (step instanceof Step.HandToOrphaning) {
      orphan(ownerUid);
    } else if (step instanceof Step.Release) {
      unfinalize(ownerUid);
    } else if (step instanceof Step.ReleaseRing ring) {
      listener.ringReleased(ring.path());
      unit = ring.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
      ring.members().forEach(m -> unfinalize(m.uid()));
      unit = Set.of();
    }
  }

  /**
   * The API server's orphaning as the built-in collector completes it: every reference to the owner
   * is removed, then syncgc lets the owner go.
   */
  private void orphan(String ownerUid) {
    for (ObjectMetadata d : List.copyOf(objects.values())) {
      if (d.owners().stream().anyMatch(l -> l.uid().equals(ownerUid))) {
        listener.referenceDropped(d, ownerUid);
        List<OwnerLink> owners = d.owners().stream().filter(l -> !l.uid().equals(ownerUid)).toList();
        put(with(d, owners, d.finalizers(), d.beingDeleted(), d.annotations()));
      }
    }
    unfinalize(ownerUid);
  }

  private void unfinalize(String uid) {
    ObjectMetadata o = objects.get(uid);
    if (o != null) {
      List<String> finalizers = new ArrayList<>(o.finalizers());
      finalizers.remove(Names.FINALIZER);
      put(with(o, o.owners(), finalizers, o.beingDeleted(), o.annotations()));
    }
  }

  private void annotate(String uid, Map<String, String> written) {
    ObjectMetadata o = objects.get(uid);
    Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
    annotations.putAll(written);
    put(with(o, o.owners(), o.finalizers(), o.beingDeleted(), annotations));
  }

  private ObjectMetadata with(ObjectMetadata o, List<OwnerLink> owners, List<String> finalizers,
      boolean deleting, Map<String, String> annotations) {
    Instant deletedAt = deleting ? Optional.ofNullable(o.deletionTimestamp()).orElse(now) : null;
    return new ObjectMetadata(o.ref(), ++version, owners, finalizers, deletedAt, o.deletionGracePeriodSeconds(),
        annotations, o.labels());
  }

  private void put(ObjectMetadata o) {
    if (o.beingDeleted() && o.finalizers().isEmpty()) {
      Map<String, ObjectMetadata> before = Map.copyOf(objects);
      objects.remove(o.uid());
      graph.remove(o.uid());
      removed.add(o.uid());
      listener.removed(o.uid(), unit.isEmpty() ? Set.of(o.uid()) : unit, before, Map.copyOf(objects));
    } else {
      objects.put(o.uid(), o);
      graph.upsert(o);
    }
  }
}
