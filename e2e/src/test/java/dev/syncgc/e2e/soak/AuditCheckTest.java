package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log's judge on requests written by hand, as kube-apiserver records them. */
class AuditCheckTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOT = "/registry/test.syncgc.dev/widgets/soak-x-r1-s0/root";
  private static final String CHILD = "/registry/test.syncgc.dev/widgets/soak-x-r1-s0/child";
  private static final String ORPHAN = "/registry/test.syncgc.dev/widgets/soak-x-r1-s1/root";
  private static final String HOLD = SoakObject.HOLD;
  private static final Map<String, String> ROUND = Map.of(ROOT, "u-root", CHILD, "u-child", ORPHAN, "u-orphan");
  private static final AuditCheck.Allowed ALLOWED = new AuditCheck.Allowed(Map.of(CHILD, "u-child"),
      Map.of(ORPHAN, "u-orphan"));

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  private static AuditLog.Request delete(String key, int code, String uid, String propagation) {
    JsonNode body = uid == null && propagation == null ? MissingNode.getInstance()
        : json("{'kind':'DeleteOptions','propagationPolicy':" + (propagation == null ? "null" : "'" + propagation + "'")
            + (uid == null ? "" : ",'preconditions':{'uid':'" + uid + "'}") + "}");
    return new AuditLog.Request("delete", key, code, "", uid, propagation, null, body, "DELETE " + key + " " + code);
  }

  private static AuditLog.Request patch(String key, int code, String body) {
    return new AuditLog.Request("patch", key, code, "", null, null, null, json(body), "PATCH " + key + " " + body);
  }

  private static AuditLog.Request handOver(long resourceVersion) {
    String body = "{\"kind\":\"DeleteOptions\",\"propagationPolicy\":\"Orphan\",\"preconditions\":{\"uid\":\"u-orphan\","
        + "\"resourceVersion\":\"" + resourceVersion + "\"}}";
    return new AuditLog.Request("delete", ORPHAN, 200, "", "u-orphan", "Orphan", null, json(body),
        "DELETE " + ORPHAN + " " + body);
  }

  private static List<String> check(AuditLog.Request... requests) {
    return new AuditCheck("soak-x").check(List.of(requests), ALLOWED, ROUND, (key, rv) -> rv == 7
        ? List.of(HOLD, FINALIZER) : null).violations();
  }

  @Test
  void aCascadeDeletesEachDependentOnceWithItsUidAndNeverTheOwnerTheUserDeleted() {
    assertEquals(List.of(), check(delete(CHILD, 200, "u-child", "Background"),
        delete(CHILD, 404, "u-child", "Background")), "a second DELETE that finds it gone deletes nothing");
    List<String> twice = check(delete(CHILD, 200, "u-child", "Background"), delete(CHILD, 200, "u-child", "Background"));
    assertTrue(twice.size() == 1 && twice.get(0).contains("twice"), twice.toString());
    List<String> root = check(delete(ROOT, 409, "u-root", "Background"));
    assertTrue(root.size() == 1 && root.get(0).contains("no synchronous deletion"), "refused, but sent: " + root);
  }

  @Test
  void everyDeleteCarriesTheUidPreconditionRefusedOnesToo() {
    List<String> none = check(delete(CHILD, 409, null, "Background"));
    assertTrue(none.size() == 1 && none.get(0).contains("uid precondition null"), none.toString());
    List<String> wrong = check(delete(CHILD, 200, "u-other", "Background"));
    assertTrue(wrong.size() == 1 && wrong.get(0).contains("u-child"), wrong.toString());
    List<String> noBody = check(delete(CHILD, 422, null, null));
    assertTrue(noBody.size() == 1 && noBody.get(0).contains("without DeleteOptions"), noBody.toString());
    AuditCheck audit = new AuditCheck("soak-x");
    AuditCheck.Result apf = audit.check(List.of(delete(CHILD, 429, null, null)), ALLOWED, ROUND, (k, rv) -> null);
    assertEquals(List.of(), apf.violations(), "refused by APF before the body was read: nothing to judge");
    assertEquals(new AuditCheck.Counts(1, 1, 1, 0, 0, 0, 1, 0), apf.counts());
  }

  /**
   * A DELETE of CHILD as kube-apiserver 1.36 logs it (the soak's audit policy: level Request, stage
   * ResponseComplete), with this {@code responseStatus} and, unless null, {@code requestObject}: the
   * shape of real events, recorded on e2e/cluster.sh's control plane.
   */
  private static String event(String responseStatus, String requestObject) {
    return "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Request\",\"auditID\":"
        + "\"794127d4-09fc-4aba-a69f-99715efd4824\",\"stage\":\"ResponseComplete\",\"requestURI\":"
        + "\"/apis/test.syncgc.dev/v1/namespaces/soak-x-r1-s0/widgets/child\",\"verb\":\"delete\",\"user\":{"
        + "\"username\":\"" + SoakOperators.USER + "\",\"uid\":\"2ee6a0cd-fcbd-4307-9a8d-e2e4f2735a1f\","
        + "\"groups\":[\"system:serviceaccounts\",\"system:serviceaccounts:syncgc-soak\",\"system:authenticated\"]},"
        + "\"sourceIPs\":[\"127.0.0.1\"],\"userAgent\":\"Java-http-client/17.0.15\",\"objectRef\":{\"resource\":"
        + "\"widgets\",\"namespace\":\"soak-x-r1-s0\",\"name\":\"child\",\"apiGroup\":\"test.syncgc.dev\","
        + "\"apiVersion\":\"v1\"},\"responseStatus\":" + responseStatus
        + (requestObject == null ? "" : ",\"requestObject\":" + requestObject)
        + ",\"requestReceivedTimestamp\":\"2026-11-29T03:42:12.486352Z\",\"stageTimestamp\":"
        + "\"2026-11-29T03:42:13.838469Z\",\"annotations\":{\"authorization.k8s.io/decision\":\"allow\"}}";
  }

  /** The events as AuditLog reads them from kube-apiserver's file. */
  private static List<AuditLog.Request> logged(Path dir, String... events) throws IOException {
    Path file = dir.resolve("audit.log");
    AuditLog log = new AuditLog(file, SoakOperators.USER);
    Files.writeString(file, String.join("\n", events) + "\n");
    return log.next();
  }

  @Test
  void aDeleteWhoseBodyNeverArrivedWasNotExecutedAndIsNoViolation(@TempDir Path dir) throws IOException {
    // its sender killed between headers and body: kube-apiserver failed reading the body and answered 500
    // without executing anything (the object was not deleted); HTTP/2, as syncgc's client, then HTTP/1.1
    List<AuditLog.Request> requests = logged(dir,
        event("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"client disconnected\",\"code\":500}", null),
        event("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"read tcp 127.0.0.1:16445-\\u003e"
            + "127.0.0.1:34848: read: connection reset by peer\",\"code\":500}", null));

    AuditCheck.Result result = new AuditCheck("soak-x").check(requests, ALLOWED, ROUND, (k, rv) -> null);

    assertEquals(List.of(), result.violations(), "never executed: no DELETE without precondition");
    assertEquals(new AuditCheck.Counts(2, 2, 0, 2, 0, 0, 0, 0), result.counts());
  }

  @Test
  void aDeleteTheApiServerExecutedWithoutABodyIsAViolation(@TempDir Path dir) throws IOException {
    // an empty body is read whole, and the DELETE executed with no precondition: deleted (200), or failed
    // in etcd; and a body that arrived without the uid is judged as it is, whatever the answer
    List<AuditLog.Request> requests = logged(dir,
        event("{\"metadata\":{},\"status\":\"Success\",\"details\":{\"name\":\"child\",\"group\":"
            + "\"test.syncgc.dev\",\"kind\":\"widgets\",\"uid\":\"u-child\"},\"code\":200}", null),
        event("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"etcdserver: request timed out\","
            + "\"code\":500}", null),
        event("{\"metadata\":{},\"status\":\"Failure\",\"message\":\"client disconnected\",\"code\":500}",
            "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"meta.k8s.io/__internal\",\"propagationPolicy\":"
            + "\"Background\"}"));

    List<String> out = new AuditCheck("soak-x").check(requests, ALLOWED, ROUND, (k, rv) -> null).violations();

    assertEquals(3, out.size(), out.toString());
    assertTrue(out.get(0).contains("without DeleteOptions") && out.get(0).contains("answered 200"), out.get(0));
    assertTrue(out.get(1).contains("without DeleteOptions") && out.get(1).contains("answered 500"), out.get(1));
    assertTrue(out.get(2).contains("uid precondition null"), out.get(2));
  }

  @Test
  void anOrphanOwnerIsHandedToTheApiServersOrphaningOnce() {
    assertEquals(List.of(), check(delete(ORPHAN, 200, "u-orphan", "Orphan")));
    List<String> background = check(delete(ORPHAN, 200, "u-orphan", "Background"));
    assertTrue(background.size() == 1 && background.get(0).contains("propagationPolicy Background"),
        background.toString());
    List<String> twice = check(delete(ORPHAN, 200, "u-orphan", "Orphan"), delete(ORPHAN, 200, "u-orphan", "Orphan"));
    assertTrue(twice.size() == 1 && twice.get(0).contains("sent once"), twice.toString());
  }

  @Test
  void aNewLeaderMayHandTheOwnerOverAgainFromALaterViewOnlyAfterALeaderChange() {
    AuditLog.Request first = handOver(1771);
    AuditLog.Request later = handOver(1778);
    List<AuditLog.Request> both = List.of(first, later);
    assertEquals(List.of(), new AuditCheck("soak-x").check(both, ALLOWED, ROUND, (k, rv) -> null, true).violations());
    assertEquals(1, new AuditCheck("soak-x").check(both, ALLOWED, ROUND, (k, rv) -> null, true).counts()
        .handOversRepeated());
    assertEquals(1, new AuditCheck("soak-x").check(both, ALLOWED, ROUND, (k, rv) -> null, false).violations().size(),
        "no leader change: one process sent it twice");
    assertEquals(1, new AuditCheck("soak-x").check(List.of(first, handOver(1771)), ALLOWED, ROUND, (k, rv) -> null,
        true).violations().size(), "the same view twice: a lost answer sent again, not a new leader's plan");
  }

  @Test
  void aPatchNeverDropsAnotherControllersFinalizer() {
    String ownRemoval = "[{'op':'test','path':'/metadata/uid','value':'u-child'},{'op':'test','path':"
        + "'/metadata/finalizers/1','value':'" + FINALIZER + "'},{'op':'remove','path':'/metadata/finalizers/1'}]";
    assertEquals(List.of(), check(patch(CHILD, 200, ownRemoval)));
    List<String> untested = check(patch(CHILD, 200, "[{'op':'remove','path':'/metadata/finalizers/0'}]"));
    assertTrue(untested.size() == 1 && untested.get(0).contains("without testing"), untested.toString());
    List<String> other = check(patch(CHILD, 200, "[{'op':'test','path':'/metadata/finalizers/0','value':'" + HOLD
        + "'},{'op':'remove','path':'/metadata/finalizers/0'}]"));
    assertEquals(1, other.size(), "it tested, and removed, another controller's finalizer: " + other);
    List<String> replaced = check(patch(CHILD, 200, "[{'op':'replace','path':'/metadata/finalizers','value':[]}]"));
    assertEquals(1, replaced.size(), replaced.toString());
    List<String> ownerRef = check(patch(CHILD, 200, "[{'op':'remove','path':'/metadata/ownerReferences/0'}]"));
    assertTrue(ownerRef.size() == 1 && ownerRef.get(0).contains("reference"), ownerRef.toString());

    assertEquals(List.of(), check(patch(CHILD, 200, "{'metadata':{'uid':'u-child','resourceVersion':'7',"
        + "'finalizers':['" + HOLD + "','" + FINALIZER + "']}}")), "a merge patch adding syncgc's, at its version");
    List<String> noVersion = check(patch(CHILD, 200, "{'metadata':{'finalizers':['" + FINALIZER + "']}}"));
    assertTrue(noVersion.size() == 1 && noVersion.get(0).contains("resourceVersion"), noVersion.toString());
    List<String> dropped = check(patch(CHILD, 200, "{'metadata':{'resourceVersion':'7','finalizers':[]}}"));
    assertTrue(dropped.size() == 1 && dropped.get(0).contains(HOLD), "HOLD was there at version 7: " + dropped);
    assertEquals(List.of(), check(patch(CHILD, 409, "{'metadata':{'resourceVersion':'7','finalizers':[]}}")),
        "refused: it changed nothing (and its version is stale)");
    assertEquals(List.of(), check(patch(CHILD, 200, "{'metadata':{'uid':'u-child','annotations':{'a':null}}}")));
  }

  @Test
  void aChangeToAnObjectOutsideTheRoundIsAViolation() {
    String stranger = "/registry/configmaps/soak-x-r1-s0/stranger";
    List<String> out = check(patch(stranger, 200, "{'metadata':{'annotations':{'a':'b'}}}"));
    assertTrue(out.size() == 1 && out.get(0).contains("not an object of the round"), out.toString());
    assertEquals(List.of(), check(patch("/registry/configmaps/other-test/x", 200, "{}")),
        "objects of other tests are not judged");
  }
}
