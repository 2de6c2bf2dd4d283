package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.syncgc.e2e.support.OperatorProcess;
import org.junit.jupiter.api.Test;

/** The operator jar starts as its own process against the test cluster and reports ready. */
class OperatorProcessIT {

  @Test
  void operatorConnectsAndServesHealthProbes() {
    try (OperatorProcess operator = OperatorProcess.start("operator-process")) {
      operator.awaitReady();

      assertEquals(200, operator.get("/healthz").statusCode());
      operator.awaitLog("connected");

      operator.kill();
      assertFalse(operator.isAlive());
    }
  }
}
