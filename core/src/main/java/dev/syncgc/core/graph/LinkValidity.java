package dev.syncgc.core.graph;

/** Whether Kubernetes would honour an owner reference; an invalid one is never followed. */
public enum LinkValidity {
  VALID(""),
  UNKNOWN_KIND("the owner's kind is not served by the API server"),
  CLUSTER_SCOPED_DEPENDENT("a cluster-scoped object cannot be owned by a namespaced kind"),
  OWNER_IN_OTHER_NAMESPACE("the owner lives in another namespace");

  private final String reason;

  LinkValidity(String reason) {
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
