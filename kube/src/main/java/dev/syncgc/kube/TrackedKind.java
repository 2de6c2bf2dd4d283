package dev.syncgc.kube;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** A kind syncgc watches, with what the API server's discovery says of it. */
public record TrackedKind(String group, String version, String kind, String plural, boolean namespaced) {

  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  public ResourceDefinitionContext context() {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  /** The REST path of one object: /api/v1/namespaces/ns/configmaps/name, /apis/g/v/plural/name. */
  public String path(String namespace, String name) {
    StringBuilder path = new StringBuilder(group.isEmpty() ? "/api/" + version : "/apis/" + apiVersion());
    if (namespaced) {
      path.append("/namespaces/").append(namespace);
    }
    return path.append('/').append(plural).append('/').append(name).toString();
  }

  /** The REST path of the collection, in one namespace or (null) in all. */
  public String collectionPath(String namespace) {
    StringBuilder path = new StringBuilder(group.isEmpty() ? "/api/" + version : "/apis/" + apiVersion());
    if (namespaced && namespace != null) {
      path.append("/namespaces/").append(namespace);
    }
    return path.append('/').append(plural).toString();
  }

  /** group/kind, the identity of a kind across its versions. */
  public String groupKind() {
    return group + "/" + kind;
  }

  @Override
  public String toString() {
    return kind + "." + (group.isEmpty() ? "core" : group) + "/" + version;
  }
}
