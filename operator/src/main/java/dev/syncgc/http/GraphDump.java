package dev.syncgc.http;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.Collection;
import java.util.stream.Collectors;

/**
 * The graph by identity for {@code /debug/graph}: a line per observed object, its uid, a space, the
 * distinct uids its ownerReferences name (comma-separated, in order). The soak compares it with a
 * LIST, whatever the graph's layout in memory.
 */
public final class GraphDump {
  private GraphDump() {}

  public static String lines(Collection<ObjectMetadata> objects) {
    StringBuilder out = new StringBuilder();
    for (ObjectMetadata o : objects) {
      out.append(o.uid()).append(' ')
          .append(o.owners().stream().map(OwnerLink::uid).distinct().collect(Collectors.joining(",")))
          .append('\n');
    }
    return out.toString();
  }
}
