package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryTest {

  /** The client reports a connection lost (kube-apiserver restarting) with code -1: no answer, an outage. */
  @Test
  void aConnectionClosedWithoutAnAnswerIsAnOutage() {
    assertTrue(Retry.outage(new KubernetesClientException("Connection was closed", new IOException("closed"))));
    assertTrue(Retry.outage(new IllegalStateException(new IOException("refused"))));
    assertTrue(Retry.outage(new KubernetesClientException("unavailable", 503, null)));
    assertTrue(Retry.outage(new KubernetesClientException("too many", 429, null)));
    assertFalse(Retry.outage(new KubernetesClientException("not found", 404, null)));
    assertFalse(Retry.outage(new KubernetesClientException("conflict", 409, null)));
  }

  @Test
  void aCallWhoseConnectionClosedIsMadeAgain() {
    AtomicInteger calls = new AtomicInteger();
    String answer = Retry.call("patch", () -> {
      if (calls.incrementAndGet() == 1) {
        throw new KubernetesClientException("Connection was closed", new IOException("closed"));
      }
      return "patched";
    });
    assertEquals("patched", answer);
    assertEquals(2, calls.get());
  }
}
