package dev.syncgc.core.model;

/** Whether a kind's objects live in a namespace, as discovery tells. */
public enum Scope {
  NAMESPACED,
  CLUSTER,
  /** The kind is not served by the API server: a reference to it is never followed. */
  UNKNOWN
}
