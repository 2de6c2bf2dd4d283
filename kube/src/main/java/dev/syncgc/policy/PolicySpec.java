package dev.syncgc.policy;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/** What a GarbageCollectionPolicy matches and the settings it gives the objects it matches. */
public class PolicySpec {
  @Required
  @JsonPropertyDescription("Kinds the policy applies to; kind \"*\" means every kind of the group.")
  private List<GroupKindSpec> kinds = new ArrayList<>();

  @JsonPropertyDescription("Namespaces whose objects it applies to, by label; empty or absent: all.")
  private LabelSelector namespaceSelector;

  @JsonPropertyDescription("Objects it applies to, by label; empty or absent: all of the kinds.")
  private LabelSelector selector;

  @Required
  @JsonPropertyDescription("Synchronous, Orphan or Background.")
  private String propagation;

  @JsonPropertyDescription("Deadline of a synchronous deletion, e.g. 90s, 5m, 1h30m.")
  private String timeout;

  @JsonPropertyDescription("Grace period passed on every DELETE of the cascade.")
  private Long gracePeriodSeconds;

  @JsonPropertyDescription("What the deadline does: Release (default) lets the owner go with its dependents"
      + " remaining; Keep keeps it marked as deleted until they are gone.")
  private String onTimeout;

  @JsonPropertyDescription("When several policies match an object, the highest priority wins; on a tie, the name first in order.")
  private Integer priority;

  public List<GroupKindSpec> getKinds() {
    return kinds;
  }

  public void setKinds(List<GroupKindSpec> kinds) {
    this.kinds = kinds;
  }

  public LabelSelector getNamespaceSelector() {
    return namespaceSelector;
  }

  public void setNamespaceSelector(LabelSelector namespaceSelector) {
    this.namespaceSelector = namespaceSelector;
  }

  public LabelSelector getSelector() {
    return selector;
  }

  public void setSelector(LabelSelector selector) {
    this.selector = selector;
  }

  public String getPropagation() {
    return propagation;
  }

  public void setPropagation(String propagation) {
    this.propagation = propagation;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public Long getGracePeriodSeconds() {
    return gracePeriodSeconds;
  }

  public void setGracePeriodSeconds(Long gracePeriodSeconds) {
    this.gracePeriodSeconds = gracePeriodSeconds;
  }

  public String getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(String onTimeout) {
    this.onTimeout = onTimeout;
  }

  public Integer getPriority() {
    return priority;
  }

  public void setPriority(Integer priority) {
    this.priority = priority;
  }

  /** A group and a kind; the core group is "". */
  public static class GroupKindSpec {
    @JsonPropertyDescription("API group; \"\" for the core group.")
    private String group = "";

    @Required
    @JsonPropertyDescription("Kind, or \"*\" for every kind of the group.")
    private String kind;

    @JsonPropertyDescription("Deletion wave of these objects among their owner's dependents (the highest"
        + " wave is deleted first); the syncgc.dev/deletion-wave annotation wins. Default 0.")
    private Integer deletionWave;

    public String getGroup() {
      return group;
    }

    public void setGroup(String group) {
      this.group = group;
    }

    public String getKind() {
      return kind;
    }

    public void setKind(String kind) {
      this.kind = kind;
    }

    public Integer getDeletionWave() {
      return deletionWave;
    }

    public void setDeletionWave(Integer deletionWave) {
      this.deletionWave = deletionWave;
    }
  }
}
