package dev.syncgc.uninstall;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.DiscoverySource;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs before syncgc is uninstalled (the chart's pre-delete hook), so that nothing is left
 * stuck in Terminating: the operator is stopped first (else it would put finalizers back), then
 * every object loses the syncgc finalizer. Every kind the API server serves with {@code list} is
 * looked at ({@link ListableKinds}), not only the kinds tracked now: a kind dropped from the tracked
 * kinds by an upgrade, or refused by narrowed RBAC since, may still carry the finalizer. A kind that
 * cannot be listed is named and makes the release fail, never skipped silently. An object already
 * being deleted is handed over according
 * to its propagation in force ({@link SettingsInForce}, worked out as the operator does, policies
 * included), so the built-in collector that takes over deletes exactly what syncgc would have:
 * {@code Orphan} to the API server's orphaning (DELETE with {@code propagationPolicy: Orphan} and a
 * uid precondition: every dependent survives without the reference), {@code Synchronous} to
 * Kubernetes' foreground deletion (dependents still go first), and nothing telling or
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
   */
  public record Summary(int released, int handedOver, int failed, List<String> notListed) {
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
    ListableKinds.Found found = ListableKinds.read(served);
    List<String> notListed = new ArrayList<>(found.unreadable());
    MetadataReader reader = new MetadataReader();
    Map<String, Held> held = new LinkedHashMap<>();
    for (TrackedKind kind : found.kinds()) {
      try {
        api.listAllMetadata(kind, null, item -> {
          if (item.getMetadata() != null && item.getMetadata().getUid() != null
              && item.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
            ObjectMetadata meta = reader.read(kind, item);
            held.put(meta.uid(), new Held(kind, meta));
          }
        });
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          log.info("kind={} is no longer served; none of its objects is left", kind);
          continue;
        }
        notListed.add(ListableKinds.name(kind) + " (" + (e.getCode() == 403 ? "forbidden"
            : e.getCode() == 0 ? "no answer" : "HTTP " + e.getCode()) + ")");
        if (e.getCode() == 403) {
          log.debug("cannot list kind={}: forbidden", kind); // all named in one line at the end
        } else {
          log.warn("cannot list kind={} code={} error=\"{}\"", kind, e.getCode(), e.getMessage());
        }
      }
    }
    PoliciesInForce policies = PoliciesInForce.load(client);
    Function<ObjectMetadata, SettingsInForce> inForce =
        SettingsInForce.resolver(policies.store::settingsOf, uid -> held.containsKey(uid) ? held.get(uid).meta : null);
    int released = 0;
    int handedOver = 0;
    int failed = 0;
    for (Held h : held.values()) {
      Left left = release(h.kind, h.meta, inForce, policies);
      switch (left) {
        case UNFINALIZED -> released++;
        case DELETED_WITH_ITS_PROPAGATION -> handedOver++;
        case FAILED -> failed++;
      }
    }
    Summary summary = new Summary(released, handedOver, failed, List.copyOf(notListed));
    log.info("release finished released={} handedOver={} failed={} kindsNotListed={}", released, handedOver,
        failed, notListed.size());
    if (!notListed.isEmpty()) {
      log.error("release incomplete: could not list {} kind(s): {}; their objects may still carry the finalizer {}"
          + " and stay stuck in Terminating once syncgc is gone: let the release's identity list (and patch and"
          + " delete) them, e.g. through the chart's trackedKinds.customResources, or bring the API back, then run"
          + " the release again", notListed.size(), String.join(", ", notListed), Names.FINALIZER);
    }
    if (failed > 0) {
      log.error("release incomplete: {} object(s) carrying the finalizer {} could not be released (see the"
          + " warnings above); fix the cause and run the release again", failed, Names.FINALIZER);
    }
    return summary;
  }

  private record Held(TrackedKind kind, ObjectMetadata meta) {}

  /**
   * What became of one object: its finalizer removed and nothing else (not being deleted, or nothing
   * telling a propagation), deleted again with its propagation in force before the finalizer went, or
   * left as it was (logged why).
   */
  private enum Left { UNFINALIZED, DELETED_WITH_ITS_PROPAGATION, FAILED }

  private Left release(TrackedKind kind, ObjectMetadata object, Function<ObjectMetadata, SettingsInForce> inForce,
      PoliciesInForce policies) {
    ObjectRef ref = object.ref();
    if (!object.beingDeleted()) {
      return removeFinalizer(kind, object, "released") ? Left.UNFINALIZED : Left.FAILED;
    }
    String undecided = policies.undecided(object);
    if (undecided != null) {
      log.warn("could not work out the propagation in force of object={} uid={}: {}; left as it is", ref, ref.uid(),
          undecided);
      return Left.FAILED;
    }
    Handover handover = Handover.of(object, inForce.apply(object));
    String done = handover.describe(object);
    if (handover != Handover.NONE) {
      ApiResult r = writes.delete(kind, ref, 0, null, handover.propagationPolicy(), ObjectWrites.UNCHECKED);
      if (r.gone() || r.code() == 409) {
        log.info("gone meanwhile object={} uid={}", ref, ref.uid()); // 409: the uid precondition, another object now
        return Left.DELETED_WITH_ITS_PROPAGATION;
      }
      if (!r.ok()) {
        log.warn("could not hand over object={} uid={} error={}", ref, ref.uid(), r.message());
        return Left.FAILED;
      }
    }
    return removeFinalizer(kind, object, done) ? Left.DELETED_WITH_ITS_PROPAGATION : Left.FAILED;
  }

  /** Removes syncgc's finalizer with a JSON patch that tests the uid and the entry; true when it is gone. */
  private boolean removeFinalizer(TrackedKind kind, ObjectMetadata object, String done) {
    ObjectRef ref = object.ref();
    List<String> finalizers = object.finalizers();
    for (int attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) {
        ApiResult current = api.get(kind, ref.namespace(), ref.name());
        if (current.gone() || (current.ok() && !ref.uid().equals(current.uid()))) {
          return true;
        }
        if (!current.ok()) {
          log.warn("could not read object={} uid={} error={}", ref, ref.uid(), current.message());
          return false;
        }
        finalizers = current.finalizers();
      }
      if (!finalizers.contains(Names.FINALIZER)) {
        return true;
      }
      ApiResult r = writes.removeFinalizer(kind, ref, finalizers, Names.FINALIZER);
      if (r.ok() || r.gone()) {
        log.info("{} object={} uid={}", done, ref, ref.uid());
        return true;
      }
      if (!r.conflict()) {
        log.warn("could not release object={} uid={} error={}", ref, ref.uid(), r.message());
        return false;
      }
    }
    log.warn("could not release object={} uid={}: it kept changing", ref, ref.uid());
    return false;
  }
}
