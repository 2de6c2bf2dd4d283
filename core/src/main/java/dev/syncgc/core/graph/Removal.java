package dev.syncgc.core.graph;

import java.util.List;
import java.util.Set;

/**
 * What {@link DependencyGraph#removeIf} or {@link DependencyGraph#forgetIf} took out of the graph.
 *
 * @param uids the objects removed
 * @param owners the owners they named: they may be waiting for them
 */
public record Removal(List<String> uids, Set<String> owners) {}
