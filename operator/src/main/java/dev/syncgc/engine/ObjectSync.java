package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.FinalizerChange;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.policy.PolicyStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
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
  private final FreshnessBarrier barrier;
  private final ObjectWrites writes;
  private final EventRecorder events;
  private final SyncgcMetrics metrics;
  private final Reflectors reflectors;
  private final InputWarnings warnings;
  private final PolicyStore policies;
  private final Clock clock;
  private final ObjectStates states;
  private final DeletionsInProgress inProgress;
  private final Function<ObjectMetadata, SettingsInForce> inForce;
  private final boolean inUse;

  ObjectSync(DependencyGraph graph, DeletionPlanner planner, StepExecutor executor, FreshnessBarrier barrier, KubeApi api,
      EventRecorder events, SyncgcMetrics metrics, Reflectors reflectors, Discovery discovery, PolicyStore policies,
      Clock clock, ObjectStates states, Function<ObjectMetadata, SettingsInForce> inForce, boolean inUse) {
    this.inUse = inUse;
    this.graph = graph;
    this.planner = planner;
    this.executor = executor;
    this.barrier = barrier;
    this.writes = new ObjectWrites(api);
    this.events = events;
    this.metrics = metrics;
    this.reflectors = reflectors;
    this.warnings = new InputWarnings(graph, events, metrics, discovery, states);
    this.policies = policies;
    this.clock = clock;
    this.states = states;
    this.inProgress = new DeletionsInProgress(states, graph::get, clock);
    this.inForce = inForce;
  }

  int inProgress() {
    return inProgress.count();
  }

  double oldestInProgressAgeSeconds() {
    return inProgress.oldestAgeSeconds();
  }

  /** Looks at one object and acts; says what follows ({@link Workers} carries it out). */
  Next sync(String uid) {
    ObjectMetadata object = graph.get(uid);
    if (object == null) {
      inProgress.remove(uid);
      return Next.DONE;
    }
    SettingsInForce settings = inForce.apply(object);
    log.debug("sync object={} uid={} deleting={} finalizers={} annotations={}", object.ref(), uid,
        object.beingDeleted(), object.finalizers(), object.annotations());
    warnings.report(object, settings.own().invalid(), inUse);
    if (!object.beingDeleted()) {
      if (object.annotation(Names.LEFT_BEHIND_BY) != null && executor.leftBehind(object).retry()) {
        return Next.RETRY;
      }
      return keepFinalizer(object, settings.propagation(), FinalizerChange.decide(object, settings.propagation(),
          settings.propagationInvalid(), SettingsInForce.cascadeActive(object, graph::get)));
    }
    if (!object.hasFinalizer(Names.FINALIZER)) {
      inProgress.remove(uid);
      return Next.DONE;
    }
    inProgress.add(uid);
    ObjectStates.State state = states.of(uid);
    if (settings.propagation().isEmpty() && !state.warnedUnknown) {
      state.warnedUnknown = true;
      // finalized by an older syncgc, its setting since made invalid or its policy gone: never guess
      log.warn("no valid propagation for object under deletion object={} uid={}; handing it to the"
          + " built-in collector", object.ref(), uid);
    }
    boolean deletesDependents = settings.cascades() && !object.hasFinalizer(Names.ORPHAN_FINALIZER);
    // before anything is deleted or let go: has the graph seen every dependent (and user) there is?
    List<Blocker> unverified = deletesDependents || inUse ? barrier.verify(object, reflectors::listableKinds)
        : List.of();
    List<Step> steps = planner.plan(graph, object, settings, clock.instant(), executor.failures(), unverified,
        inForce);
    if (!ringVerified(steps)) {
      return Next.RETRY; // a ring goes as a unit only once every member's view is verified too
    }
    return executor.run(object, settings, steps);
  }

  private boolean ringVerified(List<Step> steps) {
    for (Step step : steps) {
      if (step instanceof Step.ReleaseRing ring) {
        for (ObjectMetadata member : ring.members()) {
          if (member.hasFinalizer(Names.FINALIZER)
              && !barrier.verify(member, reflectors::listableKinds).isEmpty()) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private Next keepFinalizer(ObjectMetadata object, Optional<Propagation> propagation, FinalizerChange change) {
    if (change == FinalizerChange.NONE) {
      return Next.DONE;
    }
    var kind = reflectors.kindOf(object.ref());
    Map<String, String> annotations = change.annotations(object, propagation);
    ApiResult r = switch (change) {
      case ADD -> writes.addFinalizer(kind, object, Names.FINALIZER, annotations, ObjectWrites.UNCHECKED);
      case RECORD -> writes.setAnnotationsAt(kind, object, annotations);
      default -> writes.removeFinalizerAndAnnotations(kind, object, Names.FINALIZER, List.copyOf(annotations.keySet()));
    };
    Answer answer = r.answer();
    if (answer.settled()) {
      log.info("{} object={} uid={} propagation={}", switch (change) {
        case ADD -> "added finalizer";
        case RECORD -> "recorded propagation";
        default -> "removed finalizer";
      }, object.ref(), object.uid(), propagation.map(Propagation::value).orElse("none"));
      return Next.DONE;
    }
    if (answer != Answer.STALE) {
      log.warn("could not change finalizer object={} uid={} error={}", object.ref(), object.uid(), r.message());
    }
    return Next.RETRY;
  }

  /** A version a reflector delivered (or a freshness LIST found): its bad input reported at once. */
  void observed(ObjectMetadata object, boolean firstSeen) {
    warnings.observed(object, firstSeen);
  }
}
