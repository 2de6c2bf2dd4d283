package dev.syncgc.engine;

import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.syncgc.core.TestObjects;
import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The answer matrix: every call syncgc makes in a deletion against every answer the API server
 * (or the way to it) can give, on a scripted server, each mapped to what SPEC asks for. A conflict
 * (409, a JSON-patch test that failed) plans again and is no failure; a refusal (admission, RBAC, an
 * invalid request) and a failure of the moment (5xx, no answer) plan again too, recorded in the API
 * server's words as what blocks; 404 is done; a 429 is sent again after its Retry-After.
 */
class AnswerMatrixTest {
  private static final TrackedKind WIDGETS = ScriptedExecutor.WIDGETS;
  /** KubeApi's request timeout here; a {@link Reply#TIMEOUT} answers three times as late. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);
  private static final String STATUS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",";

  /** The answers, named as the matrix prints them. */
  enum Reply {
    OK(200, null), GONE(404, STATUS + "\"message\":\"widgets \\\"x\\\" not found\",\"reason\":\"NotFound\",\"code\":404}"),
    CONFLICT(409, STATUS + "\"message\":\"Operation cannot be fulfilled on widgets.example.com \\\"x\\\": the"
        + " ResourceVersion in the precondition (7) does not match the ResourceVersion in record (8)\",\"reason\":\"Conflict\",\"details\":{\"name\":\"x\",\"kind\":\"widgets\"},\"code\":409}"),
    PATCH_TEST_FAILED(422, STATUS + "\"message\":\"the server rejected our request due to an error in our request\","
        + "\"reason\":\"Invalid\",\"details\":{},\"code\":422}"),
    ADMISSION_422(422, STATUS + "\"message\":\"widgets \\\"x\\\" is forbidden: ValidatingAdmissionPolicy 'p' with"
        + " binding 'p' denied request: protected\",\"reason\":\"Invalid\",\"details\":{\"name\":\"x\",\"kind\":"
        + "\"widgets\",\"causes\":[{\"message\":\"denied request: protected\"}]},\"code\":422}"),
    ADMISSION_403(403, STATUS + "\"message\":\"admission webhook \\\"guard.example.com\\\" denied the request: no\","
        + "\"reason\":\"Forbidden\",\"details\":{\"name\":\"x\",\"kind\":\"widgets\"},\"code\":403}"),
    RBAC_403(403, STATUS + "\"message\":\"widgets \\\"x\\\" is forbidden: User \\\"syncgc\\\" cannot delete resource"
        + " \\\"widgets\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"x\",\"kind\":\"widgets\"},\"code\":403}"),
    /** Crossplane's Usage webhook refuses a DELETE with 409: the API server keeps the code, prefixes the message. */
    WEBHOOK_409(409, STATUS + "\"message\":\"admission webhook \\\"nousages.apiextensions.crossplane.io\\\" denied"
        + " the request: This resource is in-use by 1 Usage(s)\",\"reason\":\"Conflict\",\"code\":409}"),
    /** A webhook may refuse with 404 too: no sign that the object is gone. */
    WEBHOOK_404(404, STATUS + "\"message\":\"admission webhook \\\"guard.example.com\\\" denied the request:"
        + " not here\",\"code\":404}"),
    BAD_REQUEST(400, STATUS + "\"message\":\"bad request\",\"reason\":\"BadRequest\",\"code\":400}"),
    THROTTLED_THEN_OK(429, STATUS + "\"message\":\"too many requests\",\"reason\":\"TooManyRequests\",\"code\":429}"),
    SERVER_ERROR(500, STATUS + "\"message\":\"etcdserver: request timed out\",\"code\":500}"),
    UNAVAILABLE(503, STATUS + "\"message\":\"service unavailable\",\"code\":503}"),
    NO_ANSWER(Answer.NO_ANSWER, ""),
    /** The answer comes after the client's request timeout ({@link #REQUEST_TIMEOUT}). */
    TIMEOUT(200, "");

    final int code;
    final String body;

    Reply(int code, String body) {
      this.code = code;
      this.body = body;
    }
  }

  /** What SPEC asks for: the worker's next move, and the start of what is recorded as blocking (null: nothing). */
  record Action(Next next, String recorded) {}

  /** The calls of a deletion, each with the request it is and the steps that make it. */
  enum Call {
    DELETE_DEPENDENT("DELETE /apis/example.com/v1/namespaces/default/widgets/d"),
    FINALIZE_DEPENDENT("PATCH /apis/example.com/v1/namespaces/default/widgets/d"),
    DROP_REFERENCE("PATCH /apis/example.com/v1/namespaces/default/widgets/d"),
    LOOK_UP_UNSEEN_OWNER("GET /apis/example.com/v1/namespaces/default/widgets/co"),
    RELEASE_OWNER("PATCH /apis/example.com/v1/namespaces/default/widgets/x"),
    HAND_TO_ORPHANING("DELETE /apis/example.com/v1/namespaces/default/widgets/x");

    final String request;

    Call(String request) {
      this.request = request;
    }
  }

  static Stream<Arguments> matrix() {
    List<Arguments> out = new ArrayList<>();
    for (Call call : Call.values()) {
      for (Reply reply : Reply.values()) {
        out.add(Arguments.of(call, reply));
      }
    }
    return out.stream();
  }

  /** SPEC's action for each pair. */
  static Action expected(Call call, Reply reply) {
    String what = switch (call) {
      case DELETE_DEPENDENT -> "DELETE";
      case FINALIZE_DEPENDENT -> "adding the syncgc finalizer";
      case DROP_REFERENCE -> "removing its owner reference";
      case LOOK_UP_UNSEEN_OWNER -> "looking up its owner Widget/co";
      default -> null;
    };
    boolean ownerCall = what == null;
    return switch (reply) {
      case OK, THROTTLED_THEN_OK -> call == Call.LOOK_UP_UNSEEN_OWNER
          ? new Action(Next.RETRY, "its owner Widget/co exists but is not seen yet") : new Action(Next.DONE, null);
      case GONE -> new Action(Next.DONE, null); // a GET's 404: the owner is gone, so the DELETE goes (answered 200)
      case CONFLICT, PATCH_TEST_FAILED -> new Action(Next.RETRY, null);
      case ADMISSION_422, ADMISSION_403, WEBHOOK_409, WEBHOOK_404, BAD_REQUEST ->
          new Action(Next.RETRY, ownerCall ? null : "refused " + what);
      case RBAC_403 -> new Action(Next.RETRY, ownerCall ? null : "missing permission for " + what);
      case SERVER_ERROR, UNAVAILABLE, NO_ANSWER, TIMEOUT ->
          new Action(Next.RETRY, ownerCall ? null : "failed " + what);
    };
  }

  private ScriptedApiServer server;
  private ScriptedExecutor scripted;

  /**
   * The JVM's first request (the HTTP client's classes loaded, its first connection) can take longer
   * than {@link #REQUEST_TIMEOUT} on a busy machine, and the case that sent it would read a timeout: one
   * request first, with a generous timeout, so that each case's time-out is the one it tests.
   */
  @BeforeAll
  static void firstRequest() {
    try (ScriptedApiServer warm = new ScriptedApiServer(x -> new Answer(200, null, "{\"kind\":"
        + "\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"1\"},"
        + "\"items\":[]}"))) {
      KubeApi api = new KubeApi(warm.client, RateLimiter.unlimited(), new SyncgcMetrics(new SimpleMeterRegistry()),
          Duration.ofSeconds(30));
      api.listMetadata(WIDGETS, "default", item -> { });
    }
  }

  @AfterEach
  void stop() {
    if (scripted != null) {
      scripted.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest(name = "{0} answered {1}")
  @MethodSource("matrix")
  void everyCallReadsEveryAnswerAsSpecMeansIt(Call call, Reply reply) throws Exception {
    AtomicInteger answered = new AtomicInteger();
    server = new ScriptedApiServer(x -> route(x, call.request, reply, answered, object(call)));
    DependencyGraph graph = TestObjects.graph();
    ObjectMetadata owner = obj("x").deleting().syncFinalizer().deadline(TestObjects.DELETED_AT.plusSeconds(3600))
        .annotate(Names.PROPAGATION, call == Call.HAND_TO_ORPHANING ? "Orphan" : "Synchronous").build();
    ObjectMetadata dependent = call == Call.LOOK_UP_UNSEEN_OWNER
        ? obj("d").ownedBy(link("x"), link("co", Scope.NAMESPACED, true)).build() : obj("d").ownedBy("x").build();
    graph.upsert(owner);
    graph.upsert(dependent);
    scripted = new ScriptedExecutor(server, graph, REQUEST_TIMEOUT);
    StepExecutor executor = scripted.executor;
    Step.Cascade cascade = new Step.Cascade(owner.uid(), DeletionPlanner.deadlineOf(owner), null);
    List<Step> steps = switch (call) {
      case DELETE_DEPENDENT, LOOK_UP_UNSEEN_OWNER -> List.of(new Step.DeleteDependent(dependent, false, Set.of(), cascade));
      case FINALIZE_DEPENDENT -> List.of(new Step.DeleteDependent(dependent, true, Set.of(), cascade));
      case DROP_REFERENCE -> List.of(new Step.DropReference(dependent, owner.uid()));
      case RELEASE_OWNER -> List.of(new Step.Release(Outcome.COMPLETED, List.of()));
      case HAND_TO_ORPHANING -> List.of(new Step.HandToOrphaning(null));
    };
    SettingsInForce settings = SettingsInForce.ofAnnotations(owner);

    // a call that gets no answer gives up at the request timeout: it must not hold a worker
    Next next = assertTimeoutPreemptively(REQUEST_TIMEOUT.multipliedBy(8), () -> executor.run(owner, settings, steps));

    Action want = expected(call, reply);
    String recorded = executor.lastFailure(dependent.uid());
    System.out.printf("%-21s %-18s -> %-5s %s%n", call, reply, next, recorded == null ? "" : recorded);
    // done or retried (when the owner is looked at again is the deadline's business, not the answer's)
    assertEquals(want.next(), next.retry() ? Next.RETRY : Next.DONE, call + " answered " + reply + ": " + recorded);
    if (want.recorded() == null) {
      assertNull(recorded, call + " answered " + reply);
    } else {
      assertTrue(recorded != null && recorded.startsWith(want.recorded()), call + " answered " + reply + ": " + recorded);
    }
    int sent = (int) server.seen().stream().filter(Predicate.isEqual(call.request)).count();
    // a 429 is sent again after its Retry-After; the JDK's HTTP client sends a GET (idempotent) once more
    // on a connection that ended without an answer
    int expectedSent = reply == Reply.THROTTLED_THEN_OK
        || reply == Reply.NO_ANSWER && call.request.startsWith("GET") ? 2 : 1;
    assertEquals(expectedSent, sent, "requests " + call.request + ": " + server.seen());
    for (ScriptedApiServer.Received r : server.received()) {
      if (r.method().equals("DELETE")) { // the uid precondition in a body of fixed length, never chunked
        String name = r.path().substring(r.path().lastIndexOf('/') + 1);
        assertTrue(r.transferEncoding() == null && r.body().contains("\"preconditions\":{\"uid\":\"" + name + "\"")
            && String.valueOf(r.body().getBytes(StandardCharsets.UTF_8).length).equals(r.contentLength()),
            "DELETE " + r.path() + " Content-Length " + r.contentLength() + ", Transfer-Encoding "
            + r.transferEncoding() + ": " + r.body());
      }
    }
  }

  /**
   * The LIST of the freshness check (every dependent that existed when the owner's deletion was seen
   * is in the graph before anything is deleted): any answer but a list leaves the kind unchecked, a
   * blocker in the API server's words, and nothing is deleted for the owner meanwhile.
   */
  @ParameterizedTest(name = "freshness LIST answered {0}")
  @EnumSource(Reply.class)
  void theFreshnessListReadsEveryAnswerAsSpecMeansIt(Reply reply) {
    String list = "GET /apis/example.com/v1/namespaces/default/widgets";
    AtomicInteger answered = new AtomicInteger();
    server = new ScriptedApiServer(x -> route(x, list, reply, answered, "{\"kind\":"
        + "\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"7\"},"
        + "\"items\":[]}"));
    KubeApi api = new KubeApi(server.client, RateLimiter.unlimited(), new SyncgcMetrics(new SimpleMeterRegistry()),
        REQUEST_TIMEOUT);
    FreshnessBarrier barrier = new FreshnessBarrier(api::listMetadata, (kind, namespace) -> 0, Set.of(),
        (uid, version) -> false, (kind, object) -> { }, found -> { }, System::nanoTime, Runnable::run,
        new ObjectStates());
    ObjectMetadata owner = obj("x").deleting().syncFinalizer().build();

    List<Blocker> blockers = assertTimeoutPreemptively(REQUEST_TIMEOUT.multipliedBy(8),
        () -> barrier.verify(owner, () -> List.of(WIDGETS)));

    System.out.printf("%-21s %-18s -> %s%n", "FRESHNESS_LIST", reply, blockers);
    boolean listed = reply == Reply.OK || reply == Reply.THROTTLED_THEN_OK;
    assertEquals(listed ? 0 : 1, blockers.size(), "freshness LIST answered " + reply + ": " + blockers);
    if (!listed) {
      assertTrue(blockers.get(0).toString().contains("cannot list Widget in default to check for dependents not seen"
          + " yet: " + (reply == Reply.RBAC_403 ? "forbidden (grant list on it)"
          : reply == Reply.NO_ANSWER || reply == Reply.TIMEOUT ? "no answer" : "HTTP " + reply.code + ": ")),
          blockers.toString());
    }
    int sent = (int) server.seen().stream().filter(r -> r.startsWith(list + "?")).count();
    assertEquals(reply == Reply.THROTTLED_THEN_OK || reply == Reply.NO_ANSWER ? 2 : 1, sent, server.seen().toString());
  }

  /** The call under test gets the reply; everything else what a healthy API server answers. */
  private static Answer route(HttpExchange x, String call, Reply reply, AtomicInteger answered, String ok) {
    String query = x.getRequestURI().getRawQuery() == null ? "" : x.getRequestURI().getRawQuery();
    String request = x.getRequestMethod() + " " + x.getRequestURI().getPath();
    if (request.contains("/events")) {
      return new Answer(201, null, "{}");
    }
    if (query.contains("sendInitialEvents")) {
      return new Answer(400, null, STATUS + "\"message\":\"no watch list\",\"reason\":\"BadRequest\",\"code\":400}");
    }
    if (query.contains("watch=true")) {
      return new Answer(200, null, "", true);
    }
    if (request.equals(call)) {
      int n = answered.incrementAndGet();
      if (reply == Reply.THROTTLED_THEN_OK && n == 1) {
        return new Answer(429, "0", reply.body);
      }
      if (reply == Reply.TIMEOUT) {
        sleep(REQUEST_TIMEOUT.multipliedBy(3));
      }
      if (reply == Reply.OK || reply == Reply.THROTTLED_THEN_OK || reply == Reply.TIMEOUT) {
        return new Answer(200, null, ok);
      }
      return new Answer(reply.code, null, reply.body);
    }
    if (request.startsWith("GET") && request.endsWith("/widgets")) {
      return new Answer(200, null, "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
          + "\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}");
    }
    // the DELETE after a finalizer patch or a lookup, and anything else: as a healthy server answers
    return new Answer(200, null, ok);
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The object a 200 carries: the unseen owner with its uid, or the object written (the orphan finalizer on). */
  private static String object(Call call) {
    String name = call == Call.LOOK_UP_UNSEEN_OWNER ? "co" : call.request.endsWith("/x") ? "x" : "d";
    String finalizers = call == Call.HAND_TO_ORPHANING ? ",\"finalizers\":[\"orphan\"]" : "";
    return "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\",\"uid\":\"" + name + "\",\"resourceVersion\":\"7\"" + finalizers + "}}";
  }
}
