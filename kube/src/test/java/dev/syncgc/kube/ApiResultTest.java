package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ApiResultTest {
  @Test
  void noAnswerSaysWhatTheClientThrew() {
    assertEquals("no answer: java.io.IOException: too many concurrent streams",
        new ApiResult(0, "java.io.IOException: too many concurrent streams").message());
  }

  @Test
  void anAnswerGivesItsCodeAndTheStatusMessage() {
    assertEquals("HTTP 409: conflict", new ApiResult(409, "{\"kind\":\"Status\",\"message\":\"conflict\"}").message());
  }

  // What each answer means. The patch-test 422 and the ValidatingAdmissionPolicy 422
  // are the API server's own bodies (v1.36, local control plane, kubectl -v=8); the 403s (a webhook's
  // denial, RBAC) and the 409 follow the Status the API server builds for them.

  private static final String PATCH_TEST_FAILED = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
      + "\"status\":\"Failure\",\"message\":\"the server rejected our request due to an error in our request\","
      + "\"reason\":\"Invalid\",\"details\":{},\"code\":422}";
  private static final String PRECONDITION = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Operation "
      + "cannot be fulfilled on configmaps \\\"d\\\": the ResourceVersion in the precondition (7) does not match\","
      + "\"reason\":\"Conflict\",\"details\":{\"name\":\"d\",\"kind\":\"configmaps\"},\"code\":409}";
  private static final String ADMISSION_422 = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"configmaps "
      + "\\\"d\\\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p' denied request: protected\","
      + "\"reason\":\"Invalid\",\"details\":{\"name\":\"d\",\"kind\":\"configmaps\",\"causes\":[{\"message\":"
      + "\"ValidatingAdmissionPolicy 'p' with binding 'p' denied request: protected\"}]},\"code\":422}";
  private static final String ADMISSION_403 = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"configmaps "
      + "\\\"d\\\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p' denied request: protected\","
      + "\"reason\":\"Forbidden\",\"details\":{\"name\":\"d\",\"kind\":\"configmaps\"},\"code\":403}";
  private static final String RBAC_403 = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"configmaps "
      + "\\\"d\\\" is forbidden: User \\\"x\\\" cannot delete resource \\\"configmaps\\\" in API group \\\"\\\"\","
      + "\"reason\":\"Forbidden\",\"details\":{\"name\":\"d\",\"kind\":\"configmaps\"},\"code\":403}";

  @Test
  void aFailedPreconditionOrPatchTestIsAConflictToPlanAgain() {
    assertTrue(new ApiResult(409, PRECONDITION).conflict());
    assertTrue(new ApiResult(422, PATCH_TEST_FAILED).conflict());
    assertFalse(new ApiResult(422, PATCH_TEST_FAILED).refused());
  }

  @Test
  void anAdmissionDenialIsARefusalNotAConflict() {
    for (ApiResult r : new ApiResult[] {new ApiResult(422, ADMISSION_422), new ApiResult(403, ADMISSION_403)}) {
      assertFalse(r.conflict(), r.body());
      assertTrue(r.refused(), r.body());
      assertFalse(r.missingPermission(), r.body());
      assertTrue(r.message().contains("denied request: protected"), r.message());
    }
  }

  // SPEC: a refusal is told by what the API server says, not by its code. An admission webhook may
  // deny with any code; the API server keeps it and prefixes the message (webhookerrors.ToStatusErr):
  // Crossplane's Usage webhook denies a DELETE with 409.
  private static final String WEBHOOK_409 = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
      + "\"status\":\"Failure\",\"message\":\"admission webhook \\\"nousages.apiextensions.crossplane.io\\\" denied"
      + " the request: This resource is in-use by 1 Usage(s), including the Usage \\\"u\\\"\",\"reason\":\"Conflict\","
      + "\"code\":409}";
  private static final String WEBHOOK_404 = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
      + "\"admission webhook \\\"guard.example.com\\\" denied the request: not here\",\"code\":404}";

  @Test
  void aWebhooksDenialIsARefusalWhateverItsCode() {
    for (ApiResult r : new ApiResult[] {new ApiResult(409, WEBHOOK_409), new ApiResult(404, WEBHOOK_404)}) {
      assertFalse(r.conflict(), r.body());
      assertFalse(r.gone(), r.body());
      assertTrue(r.refused(), r.body());
      assertFalse(r.missingPermission(), r.body());
      assertTrue(r.message().contains("denied the request"), r.message());
    }
  }

  @Test
  void onlyTheApiServersOwnConflictIsAConflict() {
    // a 409 that is not the API server's optimistic-concurrency or precondition answer (a proxy, a
    // body that is not a Status) asks for no fresh plan: it is reported as it came
    ApiResult other = new ApiResult(409, "{\"kind\":\"Status\",\"message\":\"in use\",\"reason\":\"Conflict\",\"code\":409}");
    assertFalse(other.conflict());
    assertTrue(other.refused());
    assertFalse(new ApiResult(409, "not json").conflict());
    assertTrue(new ApiResult(404, "{\"kind\":\"Status\",\"message\":\"configmaps \\\"d\\\" not found\","
        + "\"reason\":\"NotFound\",\"details\":{\"name\":\"d\",\"kind\":\"configmaps\"},\"code\":404}").gone());
  }

  @Test
  void rbacsForbiddenIsAMissingPermission() {
    ApiResult r = new ApiResult(403, RBAC_403);
    assertTrue(r.refused());
    assertTrue(r.missingPermission());
    assertFalse(r.conflict());
  }

  @Test
  void aBadRequestIsRefusedAndTransientAnswersAreNeither() {
    assertTrue(new ApiResult(400, "{\"message\":\"bad\"}").refused());
    for (int code : new int[] {0, 429, 500, 503, 504}) {
      ApiResult r = new ApiResult(code, "{\"message\":\"busy\"}");
      assertFalse(r.refused(), "" + code);
      assertFalse(r.conflict(), "" + code);
      assertFalse(r.gone(), "" + code);
    }
  }

  @Test
  void aCallNotSentSaysWhy() {
    ApiResult r = ApiResult.notSent("the owner was let go");
    assertTrue(r.notSent());
    assertFalse(r.ok() || r.gone() || r.conflict() || r.refused());
    assertEquals("not sent: the owner was let go", r.message());
  }

  /** The one row per answer every call site reads: each kind of answer maps to exactly one meaning. */
  @Test
  void everyAnswerMapsToOneMeaning() {
    assertEquals(Answer.DONE, new ApiResult(200, "{}").answer());
    assertEquals(Answer.GONE, new ApiResult(404, "{\"kind\":\"Status\",\"message\":\"not found\"}").answer());
    assertEquals(Answer.STALE, new ApiResult(409, PRECONDITION).answer());
    assertEquals(Answer.STALE, new ApiResult(422, PATCH_TEST_FAILED).answer());
    assertEquals(Answer.STALE, ApiResult.notSent("the owner stopped cascading").answer());
    assertEquals(Answer.REFUSED, new ApiResult(422, ADMISSION_422).answer());
    assertEquals(Answer.REFUSED, new ApiResult(403, ADMISSION_403).answer());
    assertEquals(Answer.REFUSED, new ApiResult(403, RBAC_403).answer());
    assertEquals(Answer.FAILED, new ApiResult(500, "{\"kind\":\"Status\",\"message\":\"etcd\"}").answer());
    assertEquals(Answer.FAILED, new ApiResult(0, "java.net.http.HttpTimeoutException: request timed out").answer());
  }

  @Test
  void theWordsSayWhetherItWasRefusedOrFailed() {
    assertEquals("missing permission for DELETE: " + new ApiResult(403, RBAC_403).message(),
        new ApiResult(403, RBAC_403).words("DELETE"));
    assertTrue(new ApiResult(422, ADMISSION_422).words("DELETE").startsWith("refused DELETE: HTTP 422: "));
    assertEquals("failed DELETE: HTTP 500", new ApiResult(500, "").words("DELETE"));
  }
}
