package dev.syncgc.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.kube.reflector.MetadataDecoder;
import java.util.List;

  /** The API server's answer; code 0 when no answer came. */
public record ApiResult(int code, String body) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public boolean ok() {
    return code >= 200 && code < 300;
  }

  /** The object is not there (any more). */
  public boolean gone() {
    return code == 404;
  }

  /** The patch's test or precondition failed: someone changed the object first. */
  public boolean conflict() {
    return code == 409 || code == 422;
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
