package dev.syncgc.uninstall;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.DiscoverySource;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs before syncgc is uninstalled (the chart's pre-delete hook), so that nothing is left
 * stuck in Terminating: the operator is stopped first (else it would put finalizers back), then
 * every object loses the syncgc finalizer. Every kind the API server serves with {@code list} is
 * looked at ({@link ListableKinds}), not only the kinds tracked now: a kind dropped from the tracked
 * kinds by an upgrade, or refused by narrowed RBAC since, may still carry the finalizer. A kind that
 * cannot be listed is named and makes the release fail, never skipped silently; in the chart's
 * restricted mode ({@link #run(boolean)}) a kind this identity may not list is named and left alone,
 * as the operator could not have finalized its objects either. An object already
 * being deleted is handed over according
 * to its propagation in force ({@link SettingsInForce}, worked out as the operator does, policies
 * included), so the built-in collector that takes over deletes exactly what syncgc would have:
 * {@code Orphan} to the API server's orphaning (DELETE with {@code propagationPolicy: Orphan} and a
 * uid precondition: every dependent survives without the reference), {@code Synchronous} to
 * Kubernetes' foreground deletion (dependents still go first; kept ones lose their reference first:
 * {@link KeptDependents}), and nothing telling or
 * {@code Background} to background deletion (the finalizer only goes). One that already carries
 * Kubernetes' {@code orphan} finalizer ({@code kubectl delete --cascade=orphan}) only loses syncgc's.
 */
public final class Uninstall {
  private static final Logger log = LoggerFactory.getLogger(Uninstall.class);

  /**
   * Counts, for the closing log line and the tests.
   *
   * @param notListed kinds (and group-versions) that could not be listed, with why: their objects may
   *     still carry the finalizer
   * @param notGranted in {@link #run(boolean) the granted kinds only}, the kinds this identity may not
   *     list, left alone: an earlier configuration with more rights may have finalized their objects
   */
  public record Summary(int released, int handedOver, int failed, List<String> notListed, List<String> notGranted) {
    /** Every object carrying the finalizer was found and released. */
    public boolean complete() {
      return failed == 0 && notListed.isEmpty();
    }
  }

  private final KubernetesClient client;
  private final KubeApi api;
  private final ObjectWrites writes;
  private final DiscoverySource served;

  public Uninstall(KubernetesClient client, KubeApi api) {
    this.client = client;
    this.api = api;
    this.writes = new ObjectWrites(api);
    this.served = DiscoverySource.of(client);
  }

  /** Finds every object carrying the syncgc finalizer, of every listable kind, and releases it. */
  public Summary run() {
    return run(false);
  }

  /**
   * As {@link #run()}; with {@code grantedKindsOnly} (the chart's restricted mode, where this identity
   * is the operator's and may list and patch only the kinds it was granted, so the operator can have
   * put its finalizer only on those), a kind it may not list (403) is named in one warning with the
   * fix and does not make the release incomplete; any other kind that cannot be listed still does.
   */
  public Summary run(boolean grantedKindsOnly) {
    Summary summary = sweep(Scope.NOTHING, Released.NONE, grantedKindsOnly);
    log.info("release finished released={} handedOver={} failed={} kindsNotListed={} kindsNotGranted={}",
        summary.released(), summary.handedOver(), summary.failed(), summary.notListed().size(),
        summary.notGranted().size());
    if (!summary.notGranted().isEmpty()) {
      log.warn("kinds not released, list forbidden (restricted mode: syncgc was not granted them, so it cannot have"
          + " finalized their objects since): {}; if an earlier configuration of this release tracked any of them"
          + " (every served kind, or more customResources), some of their objects may still carry the finalizer {}:"
          + " run `kubectl syncgc release` as someone who may list, patch and delete them",
          String.join(", ", summary.notGranted()), Names.FINALIZER);
    }
    if (!summary.notListed().isEmpty()) {
      log.error("release incomplete: could not list {} kind(s): {}; their objects may still carry the finalizer {}"
          + " and stay stuck in Terminating once syncgc is gone: let the release's identity list (and patch and"
          + " delete) them, e.g. through the chart's trackedKinds.customResources, or bring the API back, then run"
          + " the release again", summary.notListed().size(), String.join(", ", summary.notListed()), Names.FINALIZER);
    }
    if (summary.failed() > 0) {
      log.error("release incomplete: {} object(s) carrying the finalizer {} could not be released (see the"
          + " warnings above); fix the cause and run the release again", summary.failed(), Names.FINALIZER);
    }
    return summary;
  }

  /**
   * Which objects carrying syncgc's finalizer a sweep leaves alone: for the uninstall none; for an
   * operator started with narrower namespaces or kinds than an earlier one, those it still watches
   * (its own workers decide for them).
   */
  public interface Scope {
    /** Leaves nothing alone: the uninstall. */
    Scope NOTHING = new Scope() {
      @Override
      public boolean coversEvery(TrackedKind kind) {
        return false;
      }

      @Override
      public String outside(TrackedKind kind, ObjectMetadata object) {
        return "";
      }
    };

    /** Every object of the kind is left alone: the kind is not even listed. */
    boolean coversEvery(TrackedKind kind);

    /** Why the object is outside (it is released then), or null when it is left alone. */
    String outside(TrackedKind kind, ObjectMetadata object);
  }

  /** Told of each object released, once its finalizer is gone. */
  public interface Released {
    Released NONE = (kind, object, why, done) -> { };

    /**
     * @param why the scope's reason for releasing it
     * @param done what was done: only the finalizer removed, or the deletion handed over to what
     */
    void released(TrackedKind kind, ObjectMetadata object, String why, String done);
  }

  /**
   * Finds every object carrying the syncgc finalizer, of every listable kind, outside {@code scope},
   * and releases it as {@link #run()} does, telling {@code released} of each. Logs what it could not
   * list or release, and returns the counts; never throws for one kind or object.
   */
  public Summary sweep(Scope scope, Released released) {
    return sweep(scope, released, false);
  }

  private Summary sweep(Scope scope, Released released, boolean grantedKindsOnly) {
    FinalizedObjects found = FinalizedObjects.find(api, served, scope, grantedKindsOnly);
    Map<String, FinalizedObjects.Held> held = found.held();
    List<String> notListed = found.notListed();
    List<String> notGranted = found.notGranted();
    if (held.isEmpty()) {
      return new Summary(0, 0, 0, List.copyOf(notListed), List.copyOf(notGranted));
    }
    PoliciesInForce policies = PoliciesInForce.load(client);
    Function<ObjectMetadata, SettingsInForce> inForce =
        SettingsInForce.resolver(policies.store::settingsOf, uid -> held.containsKey(uid) ? held.get(uid).meta() : null);
    Set<String> foreground = new HashSet<>();
    for (FinalizedObjects.Held h : held.values()) {
      if (h.meta().beingDeleted() && policies.undecided(h.meta()) == null
          && Handover.of(h.meta(), inForce.apply(h.meta())) == Handover.FOREGROUND) {
        foreground.add(h.meta().uid());
      }
    }
    KeptDependents kept = foreground.isEmpty() ? KeptDependents.NONE
        : KeptDependents.of(api, found.kinds(), foreground, policies);
    int unfinalized = 0;
    int handedOver = 0;
    int failed = 0;
    for (FinalizedObjects.Held h : held.values()) {
      Left left = release(h, inForce, policies, kept, released);
      switch (left) {
        case UNFINALIZED -> unfinalized++;
        case DELETED_WITH_ITS_PROPAGATION -> handedOver++;
        case FAILED -> failed++;
      }
    }
    return new Summary(unfinalized, handedOver, failed, List.copyOf(notListed), List.copyOf(notGranted));
  }

  /**
   * What became of one object: its finalizer removed and nothing else (not being deleted, or nothing
   * telling a propagation), deleted again with its propagation in force before the finalizer went, or
   * left as it was (logged why).
   */
  private enum Left { UNFINALIZED, DELETED_WITH_ITS_PROPAGATION, FAILED }

  private Left release(FinalizedObjects.Held h, Function<ObjectMetadata, SettingsInForce> inForce,
      PoliciesInForce policies, KeptDependents kept, Released released) {
    TrackedKind kind = h.kind();
    ObjectMetadata object = h.meta();
    ObjectRef ref = object.ref();
    String because = h.why().isEmpty() ? "" : " (" + h.why() + ")";
    if (!object.beingDeleted()) {
      if (removeFinalizer(kind, object, "released" + because)) {
        released.released(kind, object, h.why(), "its finalizer was removed");
        return Left.UNFINALIZED;
      }
      return Left.FAILED;
    }
    String undecided = policies.undecided(object);
    if (undecided != null) {
      log.warn("could not work out the propagation in force of object={} uid={}: {}; left as it is", ref, ref.uid(),
          undecided);
      return Left.FAILED;
    }
    Handover handover = Handover.of(object, inForce.apply(object));
    String done = handover.describe(object);
    if (handover == Handover.FOREGROUND && !kept.dropReferences(writes, object)) {
      return Left.FAILED;
    }
    if (handover != Handover.NONE) {
      ApiResult r = writes.delete(kind, ref, 0, null, handover.propagationPolicy(), ObjectWrites.UNCHECKED);
      Answer answer = r.answer();
      if (answer == Answer.GONE || answer == Answer.STALE) { // stale here: the uid precondition, another object now
        log.info("gone meanwhile object={} uid={}", ref, ref.uid()); // (a webhook's 409 is a refusal: below)
        return Left.DELETED_WITH_ITS_PROPAGATION;
      }
      if (answer != Answer.DONE) {
        log.warn("could not hand over object={} uid={} error={}{}", ref, ref.uid(), r.message(), answer == Answer.REFUSED
            ? "; it keeps syncgc's finalizer: lift the refusal, then run the release again" : "");
        return Left.FAILED;
      }
    }
    if (removeFinalizer(kind, object, done + because)) {
      released.released(kind, object, h.why(), done);
      return Left.DELETED_WITH_ITS_PROPAGATION;
    }
    return Left.FAILED;
  }

  /** Removes syncgc's finalizer with a JSON patch that tests the uid and the entry; true when it is gone. */
  private boolean removeFinalizer(TrackedKind kind, ObjectMetadata object, String done) {
    ObjectRef ref = object.ref();
    List<String> finalizers = object.finalizers();
    for (int attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) {
        ApiResult current = api.get(kind, ref.namespace(), ref.name());
        Answer read = current.answer();
        if (read == Answer.GONE || (read == Answer.DONE && !ref.uid().equals(current.uid()))) {
          return true;
        }
        if (read != Answer.DONE) {
          log.warn("could not read object={} uid={} error={}", ref, ref.uid(), current.message());
          return false;
        }
        finalizers = current.finalizers();
      }
      if (!finalizers.contains(Names.FINALIZER)) {
        return true;
      }
      ApiResult r = writes.removeFinalizer(kind, ref, finalizers, Names.FINALIZER);
      Answer answer = r.answer();
      if (answer.settled()) {
        log.info("{} object={} uid={}", done, ref, ref.uid());
        return true;
      }
      if (answer != Answer.STALE) {
        log.warn("could not release object={} uid={} error={}", ref, ref.uid(), r.message());
        return false;
      }
    }
    log.warn("could not release object={} uid={}: it kept changing", ref, ref.uid());
    return false;
  }
}
