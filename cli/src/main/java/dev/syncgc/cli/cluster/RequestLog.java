package dev.syncgc.cli.cluster;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * {@code -v=6}: every request to the API server on stderr once its answer starts, as kubectl logs it
 * at that verbosity ({@code I1129 08:00:00.123456 GET https://... 200 OK in 3 milliseconds}); a
 * request that got no answer says why instead of a status.
 */
final class RequestLog implements Interceptor {
  static final String NAME = "syncgc-request-log";
  private static final DateTimeFormatter HEADER = DateTimeFormatter.ofPattern("'I'MMdd HH:mm:ss.SSSSSS")
      .withZone(ZoneId.systemDefault());
  private static final Map<Integer, String> REASONS = Map.ofEntries(Map.entry(200, "OK"), Map.entry(201, "Created"),
      Map.entry(202, "Accepted"), Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"),
      Map.entry(403, "Forbidden"), Map.entry(404, "Not Found"), Map.entry(409, "Conflict"),
      Map.entry(410, "Gone"), Map.entry(422, "Unprocessable Entity"), Map.entry(429, "Too Many Requests"),
      Map.entry(500, "Internal Server Error"), Map.entry(503, "Service Unavailable"), Map.entry(504, "Gateway Timeout"));

  private final PrintStream out;
  private final Clock clock;
  private final LongSupplier nanos;
  /** When each request in flight was sent, by method and URL (those sent at once differ in their URL). */
  private final Map<String, Long> sent = new ConcurrentHashMap<>();

  RequestLog(PrintStream out) {
    this(out, Clock.systemDefaultZone(), System::nanoTime);
  }

  RequestLog(PrintStream out, Clock clock, LongSupplier nanos) {
    this.out = out;
    this.clock = clock;
    this.nanos = nanos;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    sent.put(key(request), nanos.getAsLong());
  }

  @Override
  public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    int code = response.code();
    log(request, code + " " + REASONS.getOrDefault(code, ""));
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    log(request, "(no answer: " + failure.getClass().getSimpleName()
        + (failure.getMessage() == null ? "" : ": " + failure.getMessage()) + ")");
  }

  private void log(HttpRequest request, String outcome) {
    Long at = sent.remove(key(request));
    long millis = at == null ? 0 : (nanos.getAsLong() - at) / 1_000_000;
    out.println(HEADER.format(clock.instant()) + " " + request.method() + " " + request.uri() + " " + outcome.strip()
        + " in " + millis + " milliseconds");
  }

  private static String key(HttpRequest request) {
    return request.method() + " " + request.uri();
  }
}
