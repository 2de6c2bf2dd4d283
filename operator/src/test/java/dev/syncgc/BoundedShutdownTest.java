package dev.syncgc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BoundedShutdownTest {

  @Test
  void aShutdownThatHangsIsHaltedWithTheExitCodeOnceTheBoundHasPassed() throws Exception {
    CompletableFuture<Integer> halted = new CompletableFuture<>();
    CountDownLatch never = new CountDownLatch(1);
    Thread hook = new Thread(BoundedShutdown.of(() -> {
      try {
        never.await(); // a close waiting for a thread that will never answer
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, Duration.ofMillis(200), 1, halted::complete));
    hook.start();

    assertEquals(1, halted.get(10, TimeUnit.SECONDS), "halted with the exit code");
    hook.interrupt();
  }

  @Test
  void aShutdownThatFinishesIsNeverHalted() throws Exception {
    CompletableFuture<Integer> halted = new CompletableFuture<>();
    CountDownLatch ran = new CountDownLatch(1);
    Thread hook = new Thread(BoundedShutdown.of(ran::countDown, Duration.ofMillis(300), 1, halted::complete));
    hook.start();
    hook.join(5_000);

    assertEquals(0, ran.getCount(), "the steps ran");
    // the watchdog is interrupted when the steps finish: nothing completes the halt within well over the bound
    assertTrue(halted.completeOnTimeout(-1, 1, TimeUnit.SECONDS).get() == -1, "not halted");
  }
}
