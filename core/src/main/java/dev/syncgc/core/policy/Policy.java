package dev.syncgc.core.policy;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Setting;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  /** @param deletionWave the wave of the objects of this kind, if the policy gives one */
  public record GroupKind(String group, String kind, Optional<Integer> deletionWave) {
    public GroupKind(String group, String kind) {
      this(group, kind, Optional.empty());
    }

    public boolean matches(String objectGroup, String objectKind) {
      return group.equals(objectGroup) && (kind.equals("*") || kind.equals(objectKind));
    }
  }

  public Policy {
    kinds = List.copyOf(kinds);
  }

  /**
   * The settings this policy gives a matched object: its own, with the deletion wave of the kind
   * entry that names the object's kind exactly, else of the first {@code "*"} entry of its group.
   */
  public DeletionSettings settingsFor(ObjectMetadata object) {
    String group = object.ref().group();
    Optional<Integer> wave = kinds.stream()
        .filter(k -> k.group().equals(group) && k.kind().equals(object.ref().kind()))
        .findFirst()
        .or(() -> kinds.stream().filter(k -> k.matches(group, object.ref().kind())).findFirst())
        .flatMap(GroupKind::deletionWave);
    return settings.with(Setting.DELETION_WAVE, wave);
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
