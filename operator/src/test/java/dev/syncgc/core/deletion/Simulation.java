package dev.syncgc.core.deletion;

import java.util.Optional;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.TestObjects;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A toy API server for the planner: applies its steps to a set of objects (a DELETE marks the object,
 * or removes it when no finalizer holds it; releasing the last finalizer removes it) and plans again,
 * until nothing changes. Checks run before each step through a {@link Checks}.
 */
final class Simulation {
  /** Called before steps are applied, with the objects as the planner saw them. */
  interface Checks {
    void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen);

    /** @param unit the objects released together with it (a ring), itself included */
    void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before, Map<String, ObjectMetadata> after);
  }

  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));
  private final Map<String, ObjectMetadata> objects = new LinkedHashMap<>();
  private final DependencyGraph graph = TestObjects.graph();
  private final List<String> removed = new ArrayList<>();
  private final Checks checks;
  private long version = 10;
  private Set<String> unit = Set.of();

  Simulation(List<ObjectMetadata> world, Checks checks) {
    this.checks = checks;
    world.forEach(this::put);
  }

  static int wave(ObjectMetadata o) {
    return DeletionSettings.fromAnnotations(o.annotations()).wave();
  }

  Map<String, ObjectMetadata> objects() {
    return Map.copyOf(objects);
  }

  List<String> removed() {
    return List.copyOf(removed);
  }

  /** The user deletes an opted-in object. */
  void delete(String uid) {
    ObjectMetadata o = objects.get(uid);
    List<String> finalizers = new ArrayList<>(o.finalizers());
    if (!finalizers.contains(Names.FINALIZER)) {
      finalizers.add(Names.FINALIZER);
    }
    put(with(o, o.owners(), finalizers, true, o.annotations()));
  }

  /** Other controllers let go of everything they hold. */
  void releaseHolds() {
    for (ObjectMetadata o : List.copyOf(objects.values())) {
      if (o.hasFinalizer(Worlds.HOLD)) {
        List<String> finalizers = new ArrayList<>(o.finalizers());
        finalizers.remove(Worlds.HOLD);
        put(with(o, o.owners(), finalizers, o.beingDeleted(), o.annotations()));
      }
    }
  }

  /** Plans every object under synchronous deletion until nothing changes; false if it never settles. */
  boolean run(int maxPasses) {
    for (int pass = 0; pass < maxPasses; pass++) {
      Map<String, ObjectMetadata> before = Map.copyOf(objects);
      for (ObjectMetadata o : List.copyOf(objects.values())) {
        ObjectMetadata owner = objects.get(o.uid());
        if (owner != null && owner.beingDeleted() && owner.hasFinalizer(Names.FINALIZER)) {
          List<Step> steps = planner.plan(graph, owner, Propagation.SYNCHRONOUS, Optional.empty(), OnTimeout.RELEASE,
              Worlds.NOW, uid -> null, List.of(),
              Simulation::wave);
          checks.planned(owner, steps, Map.copyOf(objects));
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
      annotate(ownerUid, Names.DEADLINE, start.deadline().toString());
    } else if (step instanceof Step.DropReference drop) {
      ObjectMetadata d = objects.get(drop.dependent().uid());
      if (d != null) {
        List<OwnerLink> owners = d.owners().stream().filter(l -> !l.uid().equals(drop.ownerUid())).toList();
        put(with(d, owners, d.finalizers(), d.beingDeleted(), d.annotations()));
      }
    } else if (step instanceof Step.DeleteDependent delete) {
      ObjectMetadata d = objects.get(delete.dependent().uid());
      if (d != null && !d.beingDeleted()) {
        List<String> finalizers = new ArrayList<>(d.finalizers());
        if (delete.finalizeFirst()) {
          finalizers.add(Names.FINALIZER);
        }
        put(with(d, d.owners(), finalizers, true, d.annotations()));
      }
    } else if (step instanceof Step.Release) {
      unfinalize(ownerUid);
    } else if (step instanceof Step.ReleaseCycle cycle) {
      unit = cycle.members().stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
      cycle.members().forEach(m -> unfinalize(m.uid()));
      unit = Set.of();
    }
  }

  private void unfinalize(String uid) {
    ObjectMetadata o = objects.get(uid);
    if (o != null) {
      List<String> finalizers = new ArrayList<>(o.finalizers());
      finalizers.remove(Names.FINALIZER);
      put(with(o, o.owners(), finalizers, o.beingDeleted(), o.annotations()));
    }
  }

  private void annotate(String uid, String key, String value) {
    ObjectMetadata o = objects.get(uid);
    Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
    annotations.put(key, value);
    put(with(o, o.owners(), o.finalizers(), o.beingDeleted(), annotations));
  }

  private ObjectMetadata with(ObjectMetadata o, List<OwnerLink> owners, List<String> finalizers,
      boolean deleting, Map<String, String> annotations) {
    return new ObjectMetadata(o.ref(), ++version, owners, finalizers,
        deleting ? TestObjects.DELETED_AT : null, o.deletionGracePeriodSeconds(), annotations, o.labels());
  }

  private void put(ObjectMetadata o) {
    if (o.beingDeleted() && o.finalizers().isEmpty()) {
      Map<String, ObjectMetadata> before = Map.copyOf(objects);
      objects.remove(o.uid());
      graph.remove(o.uid());
      removed.add(o.uid());
      checks.removed(o.uid(), unit.isEmpty() ? Set.of(o.uid()) : unit, before, Map.copyOf(objects));
    } else {
      objects.put(o.uid(), o);
      graph.upsert(o);
    }
  }
}
