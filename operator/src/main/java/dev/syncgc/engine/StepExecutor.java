package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.graph.OwnerState;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.KubeApi.Result;
import dev.syncgc.kube.ObjectInformers;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.metrics.SyncgcMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Carries out the planner's steps for one owner: API calls, Events, metrics, logs. */
final class StepExecutor {
  private static final Logger log = LoggerFactory.getLogger(StepExecutor.class);
  private static final Duration FIRST_WAITING_EVENT_AFTER = Duration.ofSeconds(3);

  /** What the owner's worker should do after the steps ran. */
  enum Next { DONE, RETRY, GONE }

  private final DependencyGraph graph;
  private final KubeApi api;
  private final EventRecorder events;
  private final SyncgcMetrics metrics;
  private final ObjectInformers informers;
  private final FreshnessBarrier barrier;
  private final WorkQueue queue;
  private final Clock clock;
  private final Duration waitingEventInterval;
  private final Duration recheckInterval;
  private final Map<String, String> lastFailure = new ConcurrentHashMap<>();
  private final Map<String, Instant> lastWaitingEvent = new ConcurrentHashMap<>();
  private final Set<String> releasedCycles = ConcurrentHashMap.newKeySet();
  private final Set<String> deleteSent = ConcurrentHashMap.newKeySet();
  private final ExecutorService actions;

  StepExecutor(DependencyGraph graph, KubeApi api, EventRecorder events, SyncgcMetrics metrics,
      ObjectInformers informers, FreshnessBarrier barrier, WorkQueue queue, Clock clock,
      Duration waitingEventInterval, Duration recheckInterval, int parallelCalls) {
    this.graph = graph;
    this.api = api;
    this.events = events;
    this.metrics = metrics;
    this.informers = informers;
    this.barrier = barrier;
    this.queue = queue;
    this.clock = clock;
    this.waitingEventInterval = waitingEventInterval;
    this.recheckInterval = recheckInterval;
    this.actions = Executors.newFixedThreadPool(parallelCalls, r -> {
      Thread t = new Thread(r, "api-call");
      t.setDaemon(true);
      return t;
    });
  }

  String lastFailure(String uid) {
    return lastFailure.get(uid);
  }

  /** The object is gone: forget what was kept about it. */
  void forget(String uid) {
    lastFailure.remove(uid);
    deleteSent.remove(uid);
    lastWaitingEvent.remove(uid);
  }

  Next run(ObjectMetadata owner, DeletionSettings settings, List<Step> steps) {
    Next next = Next.DONE;
    Instant deadline = null;
    List<Callable<Next>> batch = new ArrayList<>();
    for (Step step : steps) {
      Next result = null;
      if (step instanceof Step.Start start) {
        deadline = start.deadline();
        result = start(owner, start);
      } else if (step instanceof Step.DropReference drop) {
        batch.add(() -> dropReference(drop.dependent(), owner));
      } else if (step instanceof Step.DeleteDependent delete) {
        Instant startedDeadline = deadline;
        batch.add(() -> deleteDependent(delete.dependent(), delete.finalizeFirst(), owner, settings,
            startedDeadline));
      } else {
        next = worse(next, runAll(batch));
        batch.clear();
        if (step instanceof Step.Release release) {
          result = release(owner, release.outcome(), release.remaining());
        } else if (step instanceof Step.ReleaseCycle cycle) {
          result = releaseCycle(owner, cycle);
        } else {
          result = waitFor(owner, (Step.Wait) step);
        }
      }
      if (result == Next.GONE) {
        return Next.DONE; // the owner went before its deletion could even start: nothing to do
      }
      if (result == Next.RETRY && step instanceof Step.Start) {
        return Next.RETRY; // without a recorded deadline nothing else may start
      }
      if (result != null) {
        next = worse(next, result);
      }
    }
    return worse(next, runAll(batch));
  }

  /**
   * The calls for one owner's dependents go out in parallel (a wide owner would otherwise be
   * bound by one request's latency); the rate limiter still bounds them all.
   */
  private Next runAll(List<Callable<Next>> calls) {
    if (calls.size() <= 1) {
      try {
        return calls.isEmpty() ? Next.DONE : calls.get(0).call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    Next next = Next.DONE;
    try {
      for (Future<Next> f : calls.stream().map(actions::submit).toList()) {
        next = worse(next, f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Next.RETRY;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    return next;
  }

  private static Next worse(Next a, Next b) {
    return a == Next.RETRY || b == Next.RETRY ? Next.RETRY : Next.DONE;
  }

  private Next start(ObjectMetadata owner, Step.Start s) {
    Result r = api.patch(kindOf(owner.ref()), owner.ref(), KubeApi.MERGE_PATCH,
        Patches.setAnnotations(Map.of(Names.DEADLINE, s.deadline().toString())));
    if (r.gone()) {
      return Next.GONE;
    }
    if (!r.ok()) {
      log.warn("could not record deadline object={} uid={} error={}", owner.ref(), owner.uid(), r.message());
      return Next.RETRY;
    }
    log.info("synchronous deletion started object={} uid={} dependents={} deadline={}", owner.ref(),
        owner.uid(), s.dependentCount(), s.deadline());
    if (owner.annotation(Names.CASCADED_FROM) == null) {
      metrics.started();
      events.normal(owner.ref(), "SynchronousDeletionStarted", "Deleting " + s.dependentCount()
          + " dependent" + (s.dependentCount() == 1 ? "" : "s") + " before this object; deadline "
          + s.deadline());
    }
    return Next.DONE;
  }

  private Next dropReference(ObjectMetadata dependent, ObjectMetadata owner) {
    Result r = api.patch(kindOf(dependent.ref()), dependent.ref(), KubeApi.JSON_PATCH,
        Patches.removeOwnerReference(dependent, owner.uid()));
    if (r.ok() || r.gone()) {
      log.info("removed owner reference object={} uid={} owner={} reason=\"another owner keeps it\"",
          dependent.ref(), dependent.uid(), owner.ref());
      return Next.DONE;
    }
    return failed(dependent, "removing its owner reference", r);
  }

  private Next deleteDependent(ObjectMetadata d, boolean finalizeFirst, ObjectMetadata owner,
      DeletionSettings settings, Instant startedDeadline) {
    TrackedKind kind = kindOf(d.ref());
    if (deleteSent.contains(d.uid())) {
      return Next.DONE; // the graph has not seen its deletion yet: no second DELETE
    }
    if (unseenOwnerExists(d, owner)) {
      return Next.RETRY;
    }
    if (finalizeFirst) {
      Map<String, String> annotations = new LinkedHashMap<>();
      annotations.put(Names.CASCADED_FROM, owner.uid());
      Instant deadline = startedDeadline != null ? startedDeadline
          : DeletionPlanner.deadlineOf(owner);
      if (deadline != null) {
        annotations.put(Names.DEADLINE, deadline.toString());
      }
      if (settings.gracePeriodSeconds().isPresent() && d.annotation(Names.GRACE_PERIOD) == null) {
        annotations.put(Names.GRACE_PERIOD, settings.gracePeriodSeconds().get().toString());
      }
      Result r = api.patch(kind, d.ref(), KubeApi.MERGE_PATCH,
          Patches.addFinalizer(d, Names.FINALIZER, annotations));
      if (r.gone()) {
        return Next.DONE;
      }
      if (!r.ok()) {
        return failed(d, "adding the syncgc finalizer", r);
      }
    }
    Long grace = settings.gracePeriodSeconds().orElse(null);
    Result r = api.delete(kind, d.ref(), grace);
    if (r.ok() || r.gone() || r.code() == 409) {
      lastFailure.remove(d.uid());
      deleteSent.add(d.uid());
      log.info("deleted object={} uid={} owner={} graceSeconds={} withFinalizer={}", d.ref(), d.uid(),
          owner.ref(), grace, finalizeFirst);
      return Next.DONE;
    }
    return failed(d, "DELETE", r);
  }

  /**
   * Safety invariant 1 must not rest on the cache alone: an owner the graph has not seen (yet) is
   * looked up, as the built-in collector does, before its dependent is deleted.
   */
  private boolean unseenOwnerExists(ObjectMetadata d, ObjectMetadata owner) {
    for (OwnerLink link : d.owners()) {
      if (link.uid().equals(owner.uid()) || graph.validity(d, link) != LinkValidity.VALID
          || graph.ownerState(link) != OwnerState.ABSENT) {
        continue;
      }
      TrackedKind kind = informers.kind(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
      if (kind == null) {
        continue;
      }
      Result r = api.get(kind, kind.namespaced() ? d.ref().namespace() : null, link.name());
      if (r.ok() && link.uid().equals(r.uid())) {
        log.info("owner exists but is not seen yet object={} uid={} owner={}/{}; waiting", d.ref(), d.uid(),
            link.kind(), link.name());
        return true;
      }
      if (!r.ok() && !r.gone()) {
        log.warn("cannot look up owner object={} owner={}/{} error={}", d.ref(), link.kind(), link.name(),
            r.message());
        return true;
      }
    }
    return false;
  }

  private Next failed(ObjectMetadata d, String what, Result r) {
    if (r.conflict()) {
      log.debug("conflict object={} uid={} action=\"{}\"; retrying with fresh state", d.ref(), d.uid(), what);
      return Next.RETRY;
    }
    String reason = (r.code() == 403 ? "missing permission for " : "failed ") + what + ": " + r.message();
    lastFailure.put(d.uid(), reason);
    log.warn("action failed object={} uid={} reason=\"{}\"", d.ref(), d.uid(), reason);
    return Next.RETRY;
  }

  private Next release(ObjectMetadata owner, Outcome outcome, List<Blocker> remaining) {
    if (outcome == Outcome.COMPLETED && !barrier.noUnseenDependents(owner, informers.kinds())) {
      return Next.RETRY;
    }
    Result removed = removeFinalizer(owner);
    if (removed.gone()) {
      return Next.DONE; // released already (a second look before the graph caught up)
    }
    if (!removed.ok()) {
      return Next.RETRY;
    }
    Duration took = Duration.between(owner.deletionTimestamp(), clock.instant());
    metrics.finished(outcome, took);
    boolean root = owner.annotation(Names.CASCADED_FROM) == null;
    String tookText = String.format("%.1fs", took.toMillis() / 1000.0);
    switch (outcome) {
      case COMPLETED -> {
        log.info("synchronous deletion completed object={} uid={} took={}", owner.ref(), owner.uid(), tookText);
        if (root) {
          events.normal(owner.ref(), "SynchronousDeletionCompleted",
              "All dependents are gone; released after " + tookText);
        }
      }
      case TIMED_OUT -> {
        String blockers = remaining.stream().map(Blocker::toString).collect(Collectors.joining(", "));
        log.warn("synchronous deletion timed out object={} uid={} took={} remaining=\"{}\"", owner.ref(),
            owner.uid(), tookText, blockers);
        events.warning(owner.ref(), "SynchronousDeletionTimedOut", "Deadline passed after " + tookText
            + "; released with dependents remaining (they are still deleted in the background): "
            + blockers);
      }
      case ORPHANED -> {
        log.info("released with dependents orphaned object={} uid={}", owner.ref(), owner.uid());
        events.normal(owner.ref(), "DependentsOrphaned", "Owner references removed; dependents kept");
      }
    }
    return Next.DONE;
  }

  private Result removeFinalizer(ObjectMetadata owner) {
    Result r = api.patch(kindOf(owner.ref()), owner.ref(), KubeApi.JSON_PATCH,
        Patches.removeFinalizer(owner, Names.FINALIZER));
    if (!r.ok() && !r.gone() && !r.conflict()) {
      log.warn("could not remove finalizer object={} uid={} error={}", owner.ref(), owner.uid(), r.message());
    }
    return r;
  }

  private Next releaseCycle(ObjectMetadata owner, Step.ReleaseCycle s) {
    String path = s.path().stream().map(ObjectRef::toString).collect(Collectors.joining(" -> "));
    String key = s.members().stream().map(ObjectMetadata::uid).sorted().collect(Collectors.joining(","));
    if (releasedCycles.add(key)) {
      metrics.cycleFound();
      log.warn("dependency cycle released object={} uid={} cycle=\"{}\"", owner.ref(), owner.uid(), path);
    }
    Next next = Next.DONE;
    for (ObjectMetadata member : s.members()) {
      events.warning(member.ref(), "DependencyCycle",
          "Ownership cycle " + path + " released as a unit: every member is being deleted");
      if (member.hasFinalizer(Names.FINALIZER)) {
        Result r = removeFinalizer(member);
        if (!r.ok() && !r.gone()) {
          next = Next.RETRY;
        }
      }
    }
    return next;
  }

  private Next waitFor(ObjectMetadata owner, Step.Wait s) {
    Instant now = clock.instant();
    Duration recheck = recheckInterval;
    // a deletion that finishes within moments needs no WaitingForDependents Event
    Instant firstEventAt = owner.deletionTimestamp().plus(FIRST_WAITING_EVENT_AFTER);
    Instant last = lastWaitingEvent.get(owner.uid());
    if (last == null && now.isBefore(firstEventAt)) {
      recheck = Duration.between(now, firstEventAt);
    } else if (last == null || Duration.between(last, now).compareTo(waitingEventInterval) >= 0) {
      lastWaitingEvent.put(owner.uid(), now);
      String blockers = s.blockers().stream().map(Blocker::toString).collect(Collectors.joining(", "));
      events.normal(owner.ref(), "WaitingForDependents", "Waiting for " + s.remaining() + " dependent"
          + (s.remaining() == 1 ? "" : "s") + ": " + blockers);
    }
    Duration untilDeadline = Duration.between(now, s.deadline());
    queue.addAfter(owner.uid(), untilDeadline.compareTo(recheck) < 0 ? untilDeadline : recheck);
    return Next.DONE;
  }

  private TrackedKind kindOf(ObjectRef ref) {
    TrackedKind kind = informers.kind(ref.group() + "/" + ref.kind());
    if (kind == null) {
      throw new IllegalStateException("kind of " + ref + " is no longer tracked");
    }
    return kind;
  }
}
