package dev.syncgc.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class ReadinessTest {
  private static GenericKubernetesResource object(String status) {
    return Serialization.unmarshal("{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}"
        + (status == null ? "" : ", \"status\": " + status) + "}", GenericKubernetesResource.class);
  }

  @Test
  void theReadyConditionsStatusAndReasonAreRead() {
    assertEquals(new Readiness.Ready("False", "ContainersNotReady"), Readiness.of(object("{\"conditions\": ["
        + "{\"type\": \"Initialized\", \"status\": \"True\"},"
        + "{\"type\": \"Ready\", \"status\": \"False\", \"reason\": \"ContainersNotReady\"}]}")));
    assertEquals(new Readiness.Ready("True", null), Readiness.of(object("{\"conditions\": [{\"type\": \"Ready\","
        + " \"status\": \"True\"}]}")));
  }

  @Test
  void noReadyConditionIsNothingNotAnError() {
    assertNull(Readiness.of(object(null)));
    assertNull(Readiness.of(object("{\"phase\": \"Running\"}")));
    assertNull(Readiness.of(object("{\"conditions\": [{\"type\": \"Available\", \"status\": \"True\"}]}")));
    assertNull(Readiness.of(object("{\"conditions\": \"Ready\"}")));
    assertNull(Readiness.of(object("{\"conditions\": [\"Ready\", {\"type\": \"Ready\"}]}")));
    assertNull(Readiness.of(object("\"Ready\"")));
  }
}
