package dev.syncgc;

import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.uninstall.Uninstall;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Once at start-up, when this replica acts (it leads, or runs without leader election): objects
 * carrying syncgc's finalizer that this configuration no longer watches (an upgrade narrowed
 * {@code --namespaces} or {@code --builtin-kinds}) are released, since no worker of this operator will
 * ever look at them again and, once deleted, they would stay Terminating for ever. Each is released as
 * the uninstall releases it ({@link Uninstall#sweep}): an alive one only loses the finalizer; one under
 * deletion is handed over by its propagation in force ({@code Orphan} to the API server's orphaning,
 * {@code Synchronous} to foreground deletion, otherwise background), so the built-in collector deletes
 * what syncgc would have deleted and nothing it must keep. Every write is a JSON patch testing the uid
 * and the finalizer list as read (or a DELETE with a uid precondition): a concurrent change is never
 * lost. Each release is logged and recorded as a {@code ReleasedNoLongerTracked} Event. The kinds that
 * cannot be listed are named in one line (information when forbidden, as every kind not tracked is under
 * the chart's restricted RBAC; a warning otherwise); the operator goes on either way.
 */
final class OutOfScopeRelease {
  private static final Logger log = LoggerFactory.getLogger(OutOfScopeRelease.class);

  /**
   * What this operator watches: a kind its configuration covers (tracked now or as soon as it is
   * served), in the namespaces it watches (cluster-scoped kinds: all).
   */
  record Scope(Predicate<String> tracksGroupKind, Set<String> namespaces) implements Uninstall.Scope {
    @Override
    public boolean coversEvery(TrackedKind kind) {
      return tracksGroupKind.test(kind.groupKind()) && (!kind.namespaced() || namespaces.isEmpty());
    }

    @Override
    public String outside(TrackedKind kind, ObjectMetadata object) {
      if (!tracksGroupKind.test(kind.groupKind())) {
        return "no longer tracked: kind " + kind.kind() + (kind.group().isEmpty() ? "" : "." + kind.group())
            + " is not among the kinds syncgc tracks";
      }
      if (kind.namespaced() && !namespaces.isEmpty() && !namespaces.contains(object.ref().namespace())) {
        return "no longer tracked: namespace " + object.ref().namespace()
            + " is not among the namespaces syncgc watches";
      }
      return null;
    }
  }

  private final KubernetesClient client;
  private final KubeApi api;
  private final EventRecorder events;
  private final Scope scope;

  OutOfScopeRelease(KubernetesClient client, KubeApi api, EventRecorder events, Scope scope) {
    this.client = client;
    this.api = api;
    this.events = events;
    this.scope = scope;
  }

  /** Runs the sweep on a thread of its own, beside the workers. */
  void start() {
    Thread t = new Thread(this::run, "out-of-scope-release");
    t.setDaemon(true);
    t.start();
  }

  Uninstall.Summary run() {
    long start = System.nanoTime();
    try {
      Uninstall.Summary s = new Uninstall(client, api).sweep(scope, this::released);
      log.info("objects no longer tracked checked released={} handedOver={} failed={} kindsNotListed={} took={}ms",
          s.released(), s.handedOver(), s.failed(), s.notListed().size(), (System.nanoTime() - start) / 1_000_000);
      // forbidden: expected with the chart's restricted RBAC (trackedKinds.everyServedKind false), where
      // the kinds not tracked are not readable either; any other failure is worth a warning
      List<String> forbidden = s.notListed().stream().filter(k -> k.endsWith("(forbidden)")).toList();
      List<String> failed = s.notListed().stream().filter(k -> !k.endsWith("(forbidden)")).toList();
      if (!forbidden.isEmpty()) {
        log.info("objects no longer tracked not looked for in {} kind(s) this operator may not list: {}; an object"
            + " of those kinds still carrying the finalizer {} from an earlier, wider configuration stays"
            + " Terminating once deleted: remove the finalizer by hand (see UPGRADING.md)", forbidden.size(),
            String.join(", ", forbidden), Names.FINALIZER);
      }
      if (!failed.isEmpty()) {
        log.warn("could not look for objects no longer tracked in {} kind(s): {}; an object of those kinds that"
            + " carries the finalizer {} but is no longer watched would stay Terminating once deleted; looked at"
            + " again at the next start (see UPGRADING.md)", failed.size(), String.join(", ", failed),
            Names.FINALIZER);
      }
      if (s.failed() > 0) {
        log.warn("{} object(s) no longer tracked still carry the finalizer {} (see the warnings above); they are"
            + " looked at again at the next start", s.failed(), Names.FINALIZER);
      }
      return s;
    } catch (RuntimeException e) {
      log.warn("could not look for objects no longer tracked: {}; looked at again at the next start", e.toString());
      return null;
    }
  }

  private void released(TrackedKind kind, ObjectMetadata object, String why, String done) {
    String message = "syncgc " + why + ": " + done
        + (object.beingDeleted() ? "; syncgc no longer waits for its dependents" : "");
    if (object.beingDeleted()) {
      events.warning(object.ref(), EventReason.ReleasedNoLongerTracked, message);
    } else {
      events.normal(object.ref(), EventReason.ReleasedNoLongerTracked, message);
    }
  }
}
