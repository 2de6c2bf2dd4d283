package dev.syncgc.engine;

import java.time.Duration;
import java.util.Set;

/**
 * How the engine works.
 *
 * @param namespaces namespaces whose namespaced objects are tracked; empty for all
 * @param waitingEventInterval at most one WaitingForDependents Event per owner per interval
 * @param recheckInterval an owner that waits is looked at again at least this often
 * @param initialListTimeout start-up goes on without a kind whose initial list is not done by then
 * @param inUse used objects wait for their users, and users go first (SPEC "In use")
 * @param pauseLimit a pause of this process longer than this stops its writes ({@code PauseWatch})
 */
public record EngineSettings(
    int workers,
    Set<String> namespaces,
    Duration timeoutBase,
    Duration timeoutPerDependent,
    Duration waitingEventInterval,
    Duration recheckInterval,
    Duration initialListTimeout,
    boolean inUse,
    Duration pauseLimit) {}
