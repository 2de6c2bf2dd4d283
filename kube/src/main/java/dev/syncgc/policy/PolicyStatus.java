package dev.syncgc.policy;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** How many objects a policy decides for now, and whether it is valid (condition Ready). */
public class PolicyStatus {
  @JsonPropertyDescription("The generation of the spec this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("How many objects the policy decides for now (refreshed every 10 s).")
  private Long matchedObjects;

  @JsonPropertyDescription("Ready: True when the policy is valid and in force; False with the reason when it"
      + " is ignored.")
  private List<Condition> conditions = new ArrayList<>();

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public Long getMatchedObjects() {
    return matchedObjects;
  }

  public void setMatchedObjects(Long matchedObjects) {
    this.matchedObjects = matchedObjects;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }
}
