package dev.syncgc.cli.commands;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.DeletionRun;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A dry run of deleting one object: the operator's planner played to the end by {@link DeletionRun}
 * on the objects read, other controllers' finalizers assumed to finish. Nothing here decides; it
 * only records what the planner's steps do. SPEC "In use": the planner orders users inside the
 * deletion first; users outside it being deleted are played going first; users outside it that are
 * not keep what they use: the target's are named and the run shows what follows once they no longer
 * name it ({@link #targetUsers}), a dependent's keep it ({@link #kept}).
 */
public final class Preview {
  /** An object that stays, and why; {@code users}: the users outside the deletion that keep it in use. */
  public record Kept(ObjectMetadata object, String why, List<ObjectMetadata> users) {
    public Kept(ObjectMetadata object, String why) {
      this(object, why, List.of());
    }
  }

  /** An object of the deletion and users of it (SPEC "In use"). */
  public record Users(ObjectMetadata object, List<ObjectMetadata> users) {}

  public final ObjectMetadata target;
  /** The propagation the deletion follows, empty when the target is not opted in (syncgc would not act). */
  public final Optional<Propagation> propagation;
  /** In the order they would be gone (the target last, unless the deletion orphans). */
  public final List<ObjectMetadata> deleted = new ArrayList<>();
  public final List<Kept> kept = new ArrayList<>();
  public final List<List<ObjectRef>> rings = new ArrayList<>();
  /** Objects that would wait for another controller's finalizer. */
  public final Map<ObjectMetadata, List<String>> heldBy = new LinkedHashMap<>();
  /** Objects still there when the run settled (held for ever, for instance by an invalid setting). */
  public final List<ObjectMetadata> unsettled = new ArrayList<>();
  /** Objects of the deletion left alive and not kept: behind something that stays (in use, in a higher wave). */
  public final List<ObjectMetadata> notReached = new ArrayList<>();
  /** API requests syncgc would send: DELETEs, finalizer and annotation patches, reference removals. */
  public int requests;
  /**
   * Users outside the deletion, not being deleted, that keep the target: its deletion would wait for
   * them with no deadline before anything starts; the run shows what follows once they are gone (or
   * no longer name it).
   */
  public final List<ObjectMetadata> targetUsers = new ArrayList<>();
  /** Objects of the deletion that wait for users outside it that are being deleted (played going first). */
  public final List<Users> waitsForUsers = new ArrayList<>();
  /** Objects deleted after users of theirs this deletion deletes before them (users first), in the order they went. */
  public final List<Users> afterUsers = new ArrayList<>();
  /** Users that use each other, all being deleted, released as a unit: closed paths (the planner's RingOfUsers). */
  public final List<List<ObjectRef>> usersRings = new ArrayList<>();

  private Preview(ObjectMetadata target, Optional<Propagation> propagation) {
    this.target = target;
    this.propagation = propagation;
  }

  /**
   * @param world every object read (the target included)
   * @param settingsOf an object's effective settings, as the operator computes them
   */
  public static Preview of(KindInfo kinds, List<ObjectMetadata> world, ObjectMetadata target,
      Function<ObjectMetadata, DeletionSettings> settingsOf, Instant now) {
    return of(kinds, world, target, settingsOf, o -> settingsOf.apply(o).keep() ? "kept: " + Names.KEEP : null, now);
  }

  /**
   * @param keptBecause why an object is kept by every cascade through it (SPEC "Keep one dependent"), or null
   */
  public static Preview of(KindInfo kinds, List<ObjectMetadata> world, ObjectMetadata target,
      Function<ObjectMetadata, DeletionSettings> settingsOf, Function<ObjectMetadata, String> keptBecause,
      Instant now) {
    Map<String, ObjectMetadata> byUid = new LinkedHashMap<>();
    world.forEach(o -> byUid.put(o.uid(), o));
    Optional<Propagation> mode = SettingsInForce.resolver(settingsOf, byUid::get).apply(target).propagation()
        .filter(p -> p != Propagation.BACKGROUND);
    Preview p = new Preview(target, mode);
    if (mode.isEmpty()) {
      return p;
    }
    Map<String, ObjectMetadata> before = new LinkedHashMap<>();
    world.forEach(o -> before.put(o.uid(), o));
    DependencyGraph view = new DependencyGraph(kinds);
    view.usersFrom(o -> SettingsInForce.resolver(settingsOf, byUid::get).apply(o).usersFrom());
    world.forEach(view::upsert);
    Set<String> below = below(view, target.uid());
    for (ObjectMetadata u : PreviewUsers.outside(view, target, below)) {
      (u.beingDeleted() ? PreviewUsers.waitsFor(p, target) : p.targetUsers).add(u); // those being deleted are played going first
    }
    List<ObjectMetadata> played = PreviewUsers.released(view, world, target.ref(), p.targetUsers);
    Set<String> dropped = new LinkedHashSet<>();
    DeletionRun run = new DeletionRun(new DeletionPlanner(Duration.ofHours(1), Duration.ZERO),
        new DependencyGraph(kinds), played, settingsOf, now, new DeletionRun.Listener() {
          @Override
          public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {
            for (Step s : steps) {
              p.requests += s instanceof Step.DeleteDependent d ? (d.finalizeFirst() ? 3 : 1)
                  : s instanceof Step.ReleaseRing c ? c.members().size() : 1;
              if (s instanceof Step.RingOfUsers ring && p.usersRings.stream().noneMatch(r -> Set.copyOf(r)
                  .equals(Set.copyOf(ring.path())))) {
                p.usersRings.add(ring.path()); // once: planned again at every pass, and from each member
              }
            }
          }

          @Override
          public void referenceDropped(ObjectMetadata dependent, String ownerUid) {
            dropped.add(dependent.uid());
          }

          @Override
          public void ringReleased(List<ObjectRef> path) {
            p.rings.add(path);
          }
        });
    if (!target.beingDeleted()) {
      run.delete(target.uid());
    }
    for (int round = 0; round < 100 && run.objects().containsKey(target.uid()); round++) {
      boolean settled = run.run(10_000);
      Map<String, ObjectMetadata> seen = run.objects();
      seen.values().stream().filter(o -> o.beingDeleted() && below.contains(o.uid())).forEach(o -> {
        List<String> others = new ArrayList<>(o.finalizers());
        others.remove(Names.FINALIZER);
        if (!others.isEmpty()) {
          p.heldBy.put(before.getOrDefault(o.uid(), o), others);
        }
      });
      run.releaseForeignFinalizers(true); // other controllers finish their cleanup
      if (settled && seen.equals(run.objects())) {
        break;
      }
    }
    // objects elsewhere being deleted by their own controllers (a Namespace terminating) go in the run too: not ours
    run.removed().stream().filter(below::contains).forEach(uid -> p.deleted.add(before.get(uid)));
    Map<String, ObjectMetadata> after = run.objects();
    p.keptByInvalidReferences(view, world, after);
    for (String uid : dropped) {
      ObjectMetadata o = after.get(uid);
      if (o != null && !o.beingDeleted()) {
        String because = keptBecause.apply(before.get(uid));
        p.kept.add(new Kept(before.get(uid), because != null ? because + (o.owners().isEmpty() ? "; left with no owner"
            : "") : why(o, after, mode.get())));
      }
    }
    PreviewUsers.after(p, view, below, dropped, after, run.removed());
    after.values().stream().filter(o -> o.beingDeleted() && below.contains(o.uid())).forEach(p.unsettled::add);
    return p;
  }

  /** The target and everything below it through references the operator follows, as read. */
  private static Set<String> below(DependencyGraph view, String target) {
    Set<String> below = new LinkedHashSet<>(List.of(target));
    List<String> next = new ArrayList<>(below);
    while (!next.isEmpty()) {
      String uid = next.remove(next.size() - 1);
      view.dependentsOf(uid).forEach(d -> {
        if (below.add(d.uid())) {
          next.add(d.uid());
        }
      });
    }
    return below;
  }

  /**
   * Objects left alive that name a deleted object as owner through a reference Kubernetes does not
   * honour (the operator never follows it), with the graph's reason.
   */
  private void keptByInvalidReferences(DependencyGraph view, List<ObjectMetadata> world,
      Map<String, ObjectMetadata> after) {
    Set<String> gone = new LinkedHashSet<>();
    deleted.forEach(d -> gone.add(d.uid()));
    for (ObjectMetadata o : world) {
      ObjectMetadata now = after.get(o.uid());
      if (now == null || now.beingDeleted()) {
        continue;
      }
      for (OwnerLink link : o.owners()) {
        LinkValidity validity = view.validity(o, link);
        if (gone.contains(link.uid()) && validity != LinkValidity.VALID) {
          kept.add(new Kept(o, "not followed: its reference to " + link.kind() + "/" + link.name()
              + " is invalid (" + validity.reason() + ")"));
        }
      }
    }
  }

  private static String why(ObjectMetadata o, Map<String, ObjectMetadata> after, Propagation mode) {
    List<String> owners = new ArrayList<>();
    o.owners().forEach(l -> owners.add(l.kind() + "/" + l.name()));
    if (owners.isEmpty()) {
      return mode == Propagation.ORPHAN ? "orphaned (propagation Orphan): it keeps no owner" : "left with no owner";
    }
    return (mode == Propagation.ORPHAN ? "orphaned (propagation Orphan); " : "")
        + "kept by " + String.join(", ", owners) + (mode == Propagation.ORPHAN ? "" : " (a solid owner)");
  }
}
