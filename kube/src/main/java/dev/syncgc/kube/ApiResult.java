package dev.syncgc.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.kube.reflector.MetadataDecoder;
import java.util.List;

/** The API server's answer; code 0 when no answer came, {@link #NOT_SENT} when the call was not sent. */
public record ApiResult(int code, String body) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATCH_REJECTED = "the server rejected our request due to an error in our request";

  public boolean ok() {
    return code >= 200 && code < 300;
  }

  /** The object is not there (any more). */
  public boolean gone() {
    return code == 404;
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
   * Someone changed the object first: a precondition failed (409: the uid or resourceVersion of a
   * DELETE, an update's version), or the {@code test} operation of a JSON patch failed, which the API
   * server answers with 422 and its own JSON-patch error (no object kind in the details, unlike a 422
   * of validation or admission). Plan again on a fresh view.
   */
  public boolean conflict() {
    return code == 409 || code == 422 && patchTestFailed();
  }

  /**
   * The API server will not accept this call as it is: an admission policy or webhook denied it (403
   * or 422 naming the object), a missing permission (403), an invalid request (400, 422), a method
   * not allowed (405). Sending it again unchanged only earns the same answer; what blocks is the API
   * server's message.
   */
  public boolean refused() {
    return code == 400 || code == 403 || code == 405 || code == 413 || code == 422 && !patchTestFailed();
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
    try {
      var status = JSON.readTree(body);
      var details = status.path("details");
      return details.path("kind").asText("").isEmpty() && details.path("name").asText("").isEmpty()
          && details.path("causes").isEmpty()
          && status.path("message").asText("").equals(PATCH_REJECTED);
    } catch (Exception e) {
      return false;
    }
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
