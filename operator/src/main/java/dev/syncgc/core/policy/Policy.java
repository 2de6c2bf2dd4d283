package dev.syncgc.core.policy;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A validated GarbageCollectionPolicy: which objects it opts in, and with what settings.
 *
 * @param kinds group/kind pairs it applies to; a kind of "*" means every kind of the group
 * @param priority the higher wins when several policies match one object
 */
public record Policy(
    String name,
    int priority,
    List<GroupKind> kinds,
    Selector namespaceSelector,
    Selector selector,
    DeletionSettings settings) {

  /** Conflicts resolve deterministically: the highest priority, then the name first in order. */
  public static final Comparator<Policy> PRECEDENCE =
      Comparator.comparingInt(Policy::priority).reversed().thenComparing(Policy::name);

  public record GroupKind(String group, String kind) {
    public boolean matches(String objectGroup, String objectKind) {
      return group.equals(objectGroup) && (kind.equals("*") || kind.equals(objectKind));
    }
  }

  public Policy {
    kinds = List.copyOf(kinds);
  }

  /**
   * @param namespaceLabels the labels of the object's namespace; null for a cluster-scoped object,
   *     which a policy with a namespace selector other than the empty one does not match
   */
  public boolean matches(ObjectMetadata object, Map<String, String> namespaceLabels) {
    String group = object.ref().group();
    if (kinds.stream().noneMatch(k -> k.matches(group, object.ref().kind()))) {
      return false;
    }
    if (!selector.matches(object.labels())) {
      return false;
    }
    if (namespaceLabels == null) {
      return namespaceSelector.equals(Selector.EVERYTHING);
    }
    return namespaceSelector.matches(namespaceLabels);
  }
}
