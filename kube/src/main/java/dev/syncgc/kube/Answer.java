package dev.syncgc.kube;

/**
 * What an answer of the API server means for the call that got it, decided once
 * ({@link ApiResult#answer()}): every call site reads this, never a status code. A new answer (a
 * status code, a webhook's way of refusing) is one row in {@link ApiResult} and one in the answer
 * matrix (AnswerMatrixTest).
 */
public enum Answer {
  /** The call did what it asked (2xx). */
  DONE,
  /** The object is not there, by the API server's own word (404): what the call was for is moot. */
  GONE,
  /**
   * The facts the call stood on changed: a precondition or a JSON patch's {@code test} failed, or the
   * check just before sending found that they no longer stand (nothing was sent). Plan again on a
   * fresh view; there is nothing to report.
   */
  STALE,
  /**
   * The API server will not accept the call as it is: an admission webhook or policy denied it, a
   * permission is missing, the request is invalid. Sending it again unchanged earns the same answer;
   * the API server's words say what blocks.
   */
  REFUSED,
  /** No answer, or one that may pass (5xx, 429 after the client's retries, a timeout): try again later. */
  FAILED;

  /** Nothing to do any more: the call did it, or the object it was for is gone. */
  public boolean settled() {
    return this == DONE || this == GONE;
  }
}
