package dev.syncgc.metrics;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;

/**
 * {@code process_cpu_seconds_total}: CPU time the JVM has used, under the name Prometheus' own process
 * collector gives it (kube-controller-manager and most exporters have it), so that one query compares
 * syncgc's CPU with theirs. Micrometer's {@code process_cpu_time_ns_total} says the same in nanoseconds.
 */
public final class ProcessCpuSeconds implements MeterBinder {
  @Override
  public void bindTo(MeterRegistry registry) {
    if (!(ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os)
        || os.getProcessCpuTime() < 0) {
      return; // this JVM cannot tell
    }
    FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9)
        .baseUnit("seconds")
        .description("Total user and system CPU time spent in seconds")
        .register(registry);
  }
}
