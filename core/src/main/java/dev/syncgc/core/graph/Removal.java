package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import java.util.List;
import java.util.Set;

/**
 * What {@link DependencyGraph#removeIf} or {@link DependencyGraph#forgetIf} took out of the graph.
 *
 * @param objects the objects removed, as the graph last held them (what each used: its users' holds)
 * @param owners the owners they named: they may be waiting for them
 */
public record Removal(List<ObjectMetadata> objects, Set<String> owners) {
  /** The uids of the objects removed. */
  public List<String> uids() {
    return objects.stream().map(ObjectMetadata::uid).toList();
  }
}
