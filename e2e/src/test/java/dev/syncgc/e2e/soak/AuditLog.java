package dev.syncgc.e2e.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * kube-apiserver's audit log (e2e/cluster.sh writes a policy that records one identity's DELETE,
 * PATCH and UPDATE requests with their bodies): what syncgc really sent, read incrementally.
 */
final class AuditLog {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String DEADLINE = "syncgc.dev/deadline";

  /**
   * How kube-apiserver's answer reads when the body of a request never arrived: the connection ended
   * between headers and body (its sender killed), so reading the body failed, answered 500 with Go's
   * error (HTTP/2: {@code client disconnected}; HTTP/1.1: {@code unexpected EOF}, or a reset).
   */
  private static final Pattern BODY_NOT_READ =
      Pattern.compile("client disconnected|unexpected EOF|.*: connection reset by peer");

  /**
   * One request: verb, the object's etcd-style key, the answer (code and {@code responseStatus}'s
   * message, "" if none), the DELETE's uid precondition and propagation policy, the
   * {@code syncgc.dev/deadline} a merge PATCH sets on an owner (null if none), and the body as the
   * API server read it ({@code requestObject}: DeleteOptions, the patch document, the object of an
   * UPDATE; a missing node when the request was refused before its body was read, as API Priority
   * and Fairness does with a 429, when its body never arrived, or when it had none).
   */
  record Request(String verb, String key, int code, String message, String preconditionUid,
      String propagationPolicy, String deadline, JsonNode body, String line) {
    boolean succeeded() {
      return code >= 200 && code < 300;
    }

    boolean hasBody() {
      return !body.isMissingNode() && !body.isNull();
    }

    /**
     * The API server never executed it: no body was read, and the answer is the failure to read it
     * (500 with a connection's error). A DELETE whose body is empty is executed (with no
     * preconditions) and is not this: it is answered as the deletion went (200, 404, 409, 500 from
     * etcd, an admission's refusal).
     */
    boolean bodyNeverArrived() {
      return !hasBody() && code == 500 && BODY_NOT_READ.matcher(message).matches();
    }
  }

  private final Path file;
  private final String user;
  private long offset;

  AuditLog(Path file, String user) throws IOException {
    this.file = file;
    this.user = user;
    this.offset = Files.exists(file) ? Files.size(file) : 0;
  }

  /** The requests of the identity logged since the last call. */
  List<Request> next() throws IOException {
    List<Request> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      if (in.length() < offset) {
        offset = 0; // rotated
      }
      in.seek(offset);
      byte[] bytes = new byte[(int) (in.length() - offset)];
      in.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      int end = text.lastIndexOf('\n') + 1; // a line still being written waits for the next call
      offset += text.substring(0, end).getBytes(StandardCharsets.UTF_8).length;
      for (String line : text.substring(0, end).split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode e = JSON.readTree(line);
        if (!user.equals(e.path("user").path("username").asText())) {
          continue;
        }
        JsonNode ref = e.path("objectRef");
        String group = ref.path("apiGroup").asText("");
        String ns = ref.path("namespace").asText("");
        String key = "/registry/" + (group.isEmpty() ? "" : group + "/") + ref.path("resource").asText()
            + "/" + (ns.isEmpty() ? "" : ns + "/") + ref.path("name").asText();
        JsonNode body = e.path("requestObject");
        String uid = body.path("preconditions").path("uid").asText(null);
        String deadline = body.path("metadata").path("annotations").path(DEADLINE).asText(null);
        JsonNode status = e.path("responseStatus");
        out.add(new Request(e.path("verb").asText(), key, status.path("code").asInt(), status.path("message").asText(""),
            uid, body.path("propagationPolicy").asText(null), deadline, body,
            line.length() > 600 ? line.substring(0, 600) + "..." : line));
      }
    }
    return out;
  }
}
