package dev.syncgc.kube;

import java.time.Duration;

/**
 * What {@link KubeApi} counts of its calls: each request sent, by verb and answer code, how long its
 * answer took, and each call a check just before sending stopped. The operator exports them
 * ({@code syncgc_api_requests_total}, {@code syncgc_api_request_duration_seconds},
 * {@code syncgc_api_calls_not_sent_total}, its {@code SyncgcMetrics}); the plugin counts nothing
 * ({@link #NONE}).
 */
public interface CallCounts {
  /** Counts nothing. */
  CallCounts NONE = new CallCounts() {
    @Override
    public void apiRequest(String verb, int code) {}

    @Override
    public void apiLatency(String verb, Duration took) {}

    @Override
    public void callNotSent(String verb) {}
  };

  /** A request sent and answered with {@code code} (0: no answer). */
  void apiRequest(String verb, int code);

  /** How long a request took from being sent to its answer (or to failing); a watch's, to its headers. */
  void apiLatency(String verb, Duration took);

  /** A call decided on but not sent: a check just before it found that it no longer stands. */
  void callNotSent(String verb);
}
