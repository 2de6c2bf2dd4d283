package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
