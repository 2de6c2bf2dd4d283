package dev.syncgc.engine;

import dev.syncgc.core.deletion.LeftBehind;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SPEC "Cycles and timeouts": the dependents an owner released at its Release deadline left behind
 * (their calls still failed: a refused DELETE) are still deleted afterwards. At the release each is
 * marked {@link Names#LEFT_BEHIND_BY} (the mark survives a restart); once every owner it names is gone
 * ({@link LeftBehind} decides, then a live look at each owner, as the built-in collector takes one) it
 * is deleted, at the version decided on, and tried again with backoff while the API server refuses.
 * Where kube-controller-manager runs its collector it may be first: either way it goes once.
 */
final class LeftBehindSync {
  private static final Logger log = LoggerFactory.getLogger(LeftBehindSync.class);

  private final DependencyGraph graph;
  private final KubeApi api;
  private final ObjectWrites writes;
  private final Reflectors reflectors;
  private final ObjectStates states;
  private final Clock clock;
  private final Supplier<String> leading;

  LeftBehindSync(DependencyGraph graph, KubeApi api, Reflectors reflectors, ObjectStates states, Clock clock,
      Supplier<String> leading) {
    this.graph = graph;
    this.api = api;
    this.writes = new ObjectWrites(api);
    this.reflectors = reflectors;
    this.states = states;
    this.clock = clock;
    this.leading = leading;
  }

  /**
   * Marks what the owner leaves behind, before it is let go. A mark that cannot be written is logged and
   * does not hold the owner past its deadline; the built-in collector, where it runs, still deletes it.
   */
  void mark(ObjectMetadata owner, List<ObjectMetadata> leftBehind) {
    for (ObjectMetadata d : leftBehind) {
      ApiResult r = writes.setAnnotationsOf(reflectors.kindOf(d.ref()), d, Map.of(Names.LEFT_BEHIND_BY, owner.uid()),
          leading);
      Answer answer = r.answer();
      if (answer == Answer.DONE) {
        log.info("left behind at the deadline of owner={} object={} uid={}: deleted once its owners are gone and"
            + " nothing refuses it", owner.ref(), d.ref(), d.uid());
      } else if (answer != Answer.GONE) {
        log.warn("could not mark what the deadline of owner={} leaves behind object={} uid={} error={}", owner.ref(),
            d.ref(), d.uid(), r.message());
      }
    }
  }

  /** @return {@link Next#RETRY} to look again after a backoff (a lookup or the DELETE failed) */
  Next sync(ObjectMetadata object) {
    if (LeftBehind.keeper(graph, object) != null) {
      return Next.DONE; // looked at again when an owner or user changes
    }
    for (OwnerLink link : object.owners()) {
      TrackedKind kind = reflectors.kind(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
      if (kind == null) {
        return Next.DONE; // an owner of a kind it cannot look at keeps it
      }
      ApiResult r = api.get(kind, kind.namespaced() ? object.ref().namespace() : null, link.name());
      Answer answer = r.answer();
      if (answer == Answer.DONE && link.uid().equals(r.uid())) {
        return Next.DONE; // exists, not seen yet: its arrival in the graph settles it
      }
      if (!answer.settled()) {
        return failed(object, "looking up its owner " + link.kind() + "/" + link.name(), r);
      }
    }
    Supplier<String> stands = () -> {
      String why = leading.get();
      ObjectMetadata now = graph.get(object.uid());
      return why != null ? why : now == null ? "it is gone" : LeftBehind.keeper(graph, now);
    };
    ApiResult r = writes.delete(reflectors.kindOf(object.ref()), object.ref(), object.resourceVersion(), null,
        "Background", stands);
    Answer answer = r.answer();
    if (answer.settled()) {
      log.info("deleted what a deadline left behind object={} uid={} owner={}", object.ref(), object.uid(),
          object.annotation(Names.LEFT_BEHIND_BY));
      return Next.DONE;
    }
    return answer == Answer.STALE ? Next.RETRY : failed(object, "DELETE", r);
  }

  private Next failed(ObjectMetadata object, String what, ApiResult r) {
    String reason = r.words(what);
    states.failed(object.uid(), reason, clock.instant());
    log.info("left behind at a deadline, not deleted yet object={} uid={}: {}; tried again with backoff",
        object.ref(), object.uid(), reason);
    return Next.RETRY;
  }
}
