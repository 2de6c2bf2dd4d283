package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WorkloadTest {
  @Test
  void theMinimumOfAWideWorkloadIsADeletePerDependentAndTheRootsRelease() {
    assertEquals(10_001, Workload.wide(10_000).minimumSyncgcRequests());
  }

  @Test
  void theMinimumOfATreeCountsThreeRequestsPerInnerDependent() {
    // 10x4: 10,000 leaves, 1,110 inner dependents (levels 1-3), the root
    assertEquals(10_000 + 3 * 1_110 + 1, Workload.named("tree-10x4").minimumSyncgcRequests());
    assertEquals(1_000 + 3 * 110 + 1, Workload.named("tree-10x3").minimumSyncgcRequests());
  }
}
