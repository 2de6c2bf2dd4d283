package dev.syncgc.engine;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.FinalizerChange;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.InvalidSetting;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.KubeApi.Result;
import dev.syncgc.kube.ObjectInformers;
import dev.syncgc.metrics.SyncgcMetrics;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observe, validate, act for one object: keeps an opted-in object's finalizer in place and, once the
 * object is being deleted, hands the planner's steps to the {@link StepExecutor}.
 */
final class ObjectSync {
  private static final Logger log = LoggerFactory.getLogger(ObjectSync.class);

  private final DependencyGraph graph;
  private final DeletionPlanner planner;
  private final StepExecutor executor;
  private final KubeApi api;
  private final EventRecorder events;
  private final SyncgcMetrics metrics;
  private final ObjectInformers informers;
  private final Discovery discovery;
  private final PolicyStore policies;
  private final Clock clock;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private final Set<String> inProgress = ConcurrentHashMap.newKeySet();

  ObjectSync(DependencyGraph graph, DeletionPlanner planner, StepExecutor executor, KubeApi api,
      EventRecorder events, SyncgcMetrics metrics, ObjectInformers informers, Discovery discovery, PolicyStore policies, Clock clock) {
    this.graph = graph;
    this.planner = planner;
    this.executor = executor;
    this.api = api;
    this.events = events;
    this.metrics = metrics;
    this.informers = informers;
    this.discovery = discovery;
    this.policies = policies;
    this.clock = clock;
  }

  int inProgress() {
    return inProgress.size();
  }

  /** @return false if the object should be looked at again after a backoff */
  boolean sync(String uid) {
    ObjectMetadata object = graph.get(uid);
    if (object == null) {
      inProgress.remove(uid);
      return true;
    }
    DeletionSettings settings = policies.settingsOf(object);
    log.debug("sync object={} uid={} deleting={} finalizers={} annotations={}", object.ref(), uid,
        object.beingDeleted(), object.finalizers(), object.annotations());
    reportInvalid(object, settings.invalid());
    reportInvalidLinks(object);
    boolean propagationInvalid = settings.invalid().stream()
        .anyMatch(i -> i.annotation().equals(Names.PROPAGATION));
    if (!object.beingDeleted()) {
      return keepFinalizer(object, FinalizerChange.decide(object, settings.propagation(), propagationInvalid));
    }
    if (!object.hasFinalizer(Names.FINALIZER)) {
      inProgress.remove(uid);
      return true;
    }
    inProgress.add(uid);
    // under the syncgc finalizer without a valid propagation: cascaded by an owner, or kept from before
    Propagation propagation = settings.propagation().orElse(Propagation.SYNCHRONOUS);
    List<Step> steps = planner.plan(graph, object, propagation, settings.timeout(), clock.instant(),
        executor::lastFailure);
    return executor.run(object, settings, steps) == StepExecutor.Next.DONE;
  }

  void forget(String uid) {
    inProgress.remove(uid);
    reported.removeIf(k -> k.startsWith(uid + "\n"));
    executor.forget(uid);
  }

  private boolean keepFinalizer(ObjectMetadata object, FinalizerChange change) {
    if (change == FinalizerChange.NONE) {
      return true;
    }
    var kind = informers.kind(object.ref().group() + "/" + object.ref().kind());
    Result r = change == FinalizerChange.ADD
        ? api.patch(kind, object.ref(), KubeApi.MERGE_PATCH, Patches.addFinalizer(object, Names.FINALIZER, Map.of()))
        : api.patch(kind, object.ref(), KubeApi.JSON_PATCH, Patches.removeFinalizer(object, Names.FINALIZER));
    if (r.ok() || r.gone()) {
      log.info("{} finalizer object={} uid={}", change == FinalizerChange.ADD ? "added" : "removed",
          object.ref(), object.uid());
      return true;
    }
    if (!r.conflict()) {
      log.warn("could not change finalizer object={} uid={} error={}", object.ref(), object.uid(), r.message());
    }
    return false;
  }

  private void reportInvalid(ObjectMetadata object, List<InvalidSetting> invalid) {
    for (InvalidSetting i : invalid) {
      if (reported.add(object.uid() + "\n" + i.annotation() + "\n" + i.value())) {
        metrics.invalidAnnotation();
        log.warn("invalid annotation object={} uid={} annotation={} value=\"{}\" reason=\"{}\"",
            object.ref(), object.uid(), i.annotation(), i.value(), i.reason());
        events.warning(object.ref(), "InvalidAnnotation", i.message()
            + (i.annotation().equals(Names.PROPAGATION) ? "; the finalizer is left as it is" : "; ignored"));
      }
    }
  }

  private void reportInvalidLinks(ObjectMetadata object) {
    for (OwnerLink link : object.owners()) {
      LinkValidity validity = graph.validity(object, link);
      String key = object.uid() + "\n" + link.uid() + "\n" + validity;
      if (validity == LinkValidity.VALID || reported.contains(key)) {
        continue;
      }
      if (validity == LinkValidity.UNKNOWN_KIND && discovery.serves(link.apiVersion(), link.kind())) {
        continue; // a kind defined since the last discovery: now known
      }
      if (reported.add(key)) {
        log.warn("invalid owner reference object={} uid={} owner={}/{} ownerUid={} reason=\"{}\"",
            object.ref(), object.uid(), link.kind(), link.name(), link.uid(), validity.reason());
        events.warning(object.ref(), "InvalidOwnerReference", "ownerReference to " + link.apiVersion()
            + " " + link.kind() + " " + link.name() + " (uid " + link.uid() + ") is not followed: "
            + validity.reason());
      }
    }
  }
}
