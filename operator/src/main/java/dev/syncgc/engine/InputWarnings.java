package dev.syncgc.engine;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.InvalidSetting;
import dev.syncgc.core.settings.LastValid;
import dev.syncgc.core.usage.Use;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.metrics.SyncgcMetrics;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bad input on an object, told once each (SPEC "What users see"): an invalid {@code syncgc.dev/}
 * annotation value, a {@code syncgc.dev/uses} entry that names nothing, an owner reference Kubernetes
 * would not honour. A Warning Event, a metric and a log line; never a crash or a stall.
 */
final class InputWarnings {
  private static final Logger log = LoggerFactory.getLogger(InputWarnings.class);

  private final DependencyGraph graph;
  private final EventRecorder events;
  private final SyncgcMetrics metrics;
  private final Discovery discovery;
  private final ObjectStates states;

  InputWarnings(DependencyGraph graph, EventRecorder events, SyncgcMetrics metrics, Discovery discovery,
      ObjectStates states) {
    this.graph = graph;
    this.events = events;
    this.metrics = metrics;
    this.discovery = discovery;
    this.states = states;
  }

  /** What a worker finds wrong with the object it syncs. */
  void report(ObjectMetadata object, List<InvalidSetting> invalid, boolean inUse) {
    reportInvalid(object, invalid);
    if (inUse && object.annotation(Names.USES) != null) {
      reportInvalidUses(object);
    }
    reportInvalidLinks(object, true);
    if (inUse && object.ref().namespace() == null && object.hasFinalizer(Names.FINALIZER)) {
      reportRefusedUsers(object);
    }
  }

  /**
   * SPEC "In use", holding is bounded: a namespaced user of a cluster-scoped object, from a namespace
   * the object's {@code users-from} does not allow, holds nothing; told on the user, once per object.
   */
  private void reportRefusedUsers(ObjectMetadata used) {
    for (ObjectMetadata user : graph.refusedUsersOf(used)) {
      if (states.of(user.uid()).reported.add(Names.USERS_FROM + "\n" + used.uid())) {
        metrics.invalidAnnotation();
        log.warn("user from a namespace not allowed object={} uid={} used={} usedUid={}", user.ref(), user.uid(),
            used.ref(), used.uid());
        events.warning(user.ref(), EventReason.InvalidAnnotation, Names.USES + ": " + used.ref().kind() + "/"
            + used.ref().name() + " is cluster-scoped and does not let users from namespace "
            + user.ref().namespace() + " hold it; it protects nothing from here. To hold it, add "
            + user.ref().namespace() + " to " + Names.USERS_FROM + " on " + used.ref().kind() + "/"
            + used.ref().name() + " (or to its policy's usersFrom)");
      }
    }
  }

  private void reportInvalid(ObjectMetadata object, List<InvalidSetting> invalid) {
    for (InvalidSetting i : invalid) {
      if (states.of(object.uid()).reported.add(i.annotation() + "\n" + i.value())) {
        metrics.invalidAnnotation();
        log.warn("invalid annotation object={} uid={} annotation={} value=\"{}\" reason=\"{}\"",
            object.ref(), object.uid(), i.annotation(), i.value(), i.reason());
        events.warning(object.ref(), EventReason.InvalidAnnotation, i.message()
            + (i.annotation().equals(Names.PROPAGATION) ? lastValid(object)
            : i.annotation().equals(Names.DELETION_WAVE) ? "" : lastValidSetting(object, i.annotation())));
      }
    }
  }

  /** SPEC "In use": an entry of syncgc.dev/uses that names nothing, reported once, protects nothing. */
  private void reportInvalidUses(ObjectMetadata user) {
    for (Use use : graph.uses(user)) {
      if (!use.valid() && states.of(user.uid()).reported.add(Names.USES + "\n" + use.error())) {
        metrics.invalidAnnotation();
        log.warn("invalid annotation object={} uid={} annotation={} reason=\"{}\"", user.ref(), user.uid(),
            Names.USES, use.error());
        events.warning(user.ref(), EventReason.InvalidAnnotation, Names.USES + ": " + use.error()
            + "; it protects nothing");
      }
    }
  }

  private boolean reportedAlready(String uid, String key) {
    ObjectStates.State state = states.peek(uid);
    return state != null && state.reported.contains(key);
  }

  private static String lastValid(ObjectMetadata object) {
    String recorded = object.annotation(Names.LAST_VALID_PROPAGATION);
    if (recorded != null) {
      return "; the last valid setting, " + recorded + ", stays in force";
    }
    return object.hasFinalizer(Names.FINALIZER) ? "; the finalizer is left as it is" : "; not opted in";
  }

  /** SPEC "Opting in" 2: the value recorded while the object was alive stays in force, if there is one. */
  private static String lastValidSetting(ObjectMetadata object, String annotation) {
    return LastValid.recorded(object, annotation).map(v -> "; the last valid setting, " + v + ", stays in force")
        .orElse("; ignored");
  }

  /**
   * A version a reflector delivered (or a freshness LIST found): its invalid owner references are
   * reported now, and, the first time the object is seen, those of the objects seen before it that
   * name it as owner (until then the reference could not be judged). A worker reads only the latest
   * version, and kube-controller-manager's collector removes a reference to an owner in another
   * namespace within milliseconds: a worker coming after that would never see it. A reference to an
   * unknown kind is left to the worker (telling needs a discovery request).
   */
  void observed(ObjectMetadata object, boolean firstSeen) {
    reportInvalidLinks(object, false);
    if (firstSeen) {
      for (ObjectMetadata dependent : graph.referencing(object.uid())) {
        reportInvalidLinks(dependent, false);
      }
    }
  }

  private void reportInvalidLinks(ObjectMetadata object, boolean askDiscovery) {
    for (OwnerLink link : object.owners()) {
      LinkValidity validity = graph.validity(object, link);
      if (validity == LinkValidity.VALID) {
        continue; // on every watch event of every object: nothing built for the usual case
      }
      String key = link.uid() + "\n" + validity;
      if (reportedAlready(object.uid(), key)) {
        continue;
      }
      if (validity == LinkValidity.UNKNOWN_KIND
          && (!askDiscovery || discovery.serves(link.apiVersion(), link.kind()))) {
        continue; // a kind defined since the last discovery: now known (or asked by the worker)
      }
      if (states.of(object.uid()).reported.add(key)) {
        log.warn("invalid owner reference object={} uid={} owner={}/{} ownerUid={} reason=\"{}\"",
            object.ref(), object.uid(), link.kind(), link.name(), link.uid(), validity.reason());
        events.warning(object.ref(), EventReason.InvalidOwnerReference, "ownerReference to " + link.apiVersion()
            + " " + link.kind() + " " + link.name() + " (uid " + link.uid() + ") is not followed: "
            + validity.reason());
      }
    }
  }
}
