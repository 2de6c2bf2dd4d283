package dev.syncgc.policy;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** How many objects a policy decides for now, and whether it is valid (condition Ready). */
public class PolicyStatus {
  private Long observedGeneration;
  private Long matchedObjects;
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
