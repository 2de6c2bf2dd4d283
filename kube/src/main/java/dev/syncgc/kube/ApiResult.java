package dev.syncgc.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.List;

/** The API server's answer; code 0 when no answer came, {@link #NOT_SENT} when the call was not sent. */
public record ApiResult(int code, String body) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATCH_REJECTED = "the server rejected our request due to an error in our request";

  /** What this answer means for the call that got it: the one place each status code is read. */
  public Answer answer() {
    if (ok()) {
      return Answer.DONE;
    }
    if (gone()) {
      return Answer.GONE;
    }
    if (notSent() || conflict()) {
      return Answer.STALE;
    }
    return refused() ? Answer.REFUSED : Answer.FAILED;
  }

  /**
   * What blocks {@code what} ("DELETE", "removing its owner reference"), for an Event or a blocker:
   * the API server's own words, after whether it refused (RBAC's "cannot" named as a missing
   * permission) or failed.
   */
  public String words(String what) {
    String how = missingPermission() ? "missing permission for " : answer() == Answer.REFUSED ? "refused " : "failed ";
    return how + what + ": " + message();
  }

  public boolean ok() {
    return code >= 200 && code < 300;
  }

  /** The object is not there (any more): the API server's own 404, not a webhook's denial with that code. */
  public boolean gone() {
    return code == 404 && !admissionDenied();
  }

  /** The code of a call that was not sent: a check just before it found that it no longer stands. */
  public static final int NOT_SENT = -1;

  /** A call not sent because {@code why}: nothing reached the API server. */
  public static ApiResult notSent(String why) {
    return new ApiResult(NOT_SENT, why);
  }

  public boolean notSent() {
    return code == NOT_SENT;
  }

  /**
   * Someone changed the object first: a precondition failed (the API server's own 409, reason
   * {@code Conflict}, "Operation cannot be fulfilled on ...": the uid or resourceVersion of a DELETE,
   * an update's version), or the {@code test} operation of a JSON patch failed, which the API server
   * answers with 422 and its own JSON-patch error (no object kind in the details, unlike a 422 of
   * validation or admission). Plan again on a fresh view. A 409 of anyone else (an admission webhook's
   * denial: Crossplane's {@code Usage} refuses a DELETE so) is no conflict but a refusal.
   */
  public boolean conflict() {
    return code == 409 && ownConflict() || code == 422 && patchTestFailed();
  }

  /**
   * The API server will not accept this call as it is: an admission webhook denied it (with whatever
   * code it chose), an admission policy denied it (403 or 422 naming the object), a missing
   * permission (403), an invalid request (400, 422), a method not allowed (405), a 409 that is not the
   * API server's own conflict. Sending it again unchanged only earns the same answer; what blocks is
   * the API server's message.
   */
  public boolean refused() {
    return admissionDenied() || code == 400 || code == 403 || code == 405 || code == 413
        || code == 409 && !ownConflict() || code == 422 && !patchTestFailed();
  }

  /**
   * An admission webhook's denial: the API server keeps the code the webhook chose (400 at least) and
   * prefixes its message with {@code admission webhook "NAME" denied the request}
   * ({@code webhookerrors.ToStatusErr}), so the code alone never tells a denial from the API server's
   * own 404 or 409.
   */
  public boolean admissionDenied() {
    if (code < 400 || body == null || !body.contains("admission webhook")) {
      return false;
    }
    String m = status().path("message").asText("");
    return m.startsWith("admission webhook \"") && m.contains("\" denied the request");
  }

  /** The API server's own 409 (apierrors.NewConflict): reason Conflict, "Operation cannot be fulfilled on ...". */
  private boolean ownConflict() {
    var status = status();
    return "Conflict".equals(status.path("reason").asText(""))
        && status.path("message").asText("").startsWith("Operation cannot be fulfilled on ");
  }

  private JsonNode status() {
    try {
      return JSON.readTree(body == null ? "" : body);
    } catch (Exception e) {
      return MissingNode.getInstance();
    }
  }

  /** RBAC's 403 ("User ... cannot delete resource ..."), not an admission policy's or webhook's denial. */
  public boolean missingPermission() {
    return code == 403 && message().contains(" cannot ");
  }

  /**
   * The API server answers a JSON patch whose {@code test} failed with a bare 422 (reason Invalid, no
   * details, its generic message: {@code NewGenericServerResponse}); a validation or admission 422
   * names the object and its causes. syncgc's JSON patches all carry tests.
   */
  private boolean patchTestFailed() {
    JsonNode status = status();
    JsonNode details = status.path("details");
    return details.path("kind").asText("").isEmpty() && details.path("name").asText("").isEmpty()
        && details.path("causes").isEmpty()
        && status.path("message").asText("").equals(PATCH_REJECTED);
  }

  /** The resourceVersion of the object in the body (after a write: the version written), or 0. */
  public long resourceVersion() {
    try {
      return MetadataDecoder.version(JSON.readTree(body).path("metadata").path("resourceVersion").asText(null));
    } catch (Exception e) {
      return 0;
    }
  }

  /** The uid of the object in the body, or null. */
  public String uid() {
    try {
      return JSON.readTree(body).path("metadata").path("uid").asText(null);
    } catch (Exception e) {
      return null;
    }
  }

  /** The finalizers of the object in the body. */
  public List<String> finalizers() {
    try {
      List<String> out = new java.util.ArrayList<>();
      JSON.readTree(body).path("metadata").path("finalizers").forEach(f -> out.add(f.asText()));
      return out;
    } catch (Exception e) {
      return List.of();
    }
  }

  public String message() {
    if (code == NOT_SENT) {
      return "not sent: " + body;
    }
    if (code == 0) {
      return "no answer: " + body; // what the HTTP client threw, e.g. a refused connection
    }
    try {
      Object m = JSON.readTree(body).path("message").asText(null);
      return m == null ? "HTTP " + code : "HTTP " + code + ": " + m;
    } catch (Exception e) {
      return "HTTP " + code;
    }
  }
}
