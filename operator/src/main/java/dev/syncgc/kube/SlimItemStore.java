package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Stream;

/**
 * The informer's own store, reduced to what the informer needs (identity and resourceVersion):
 * the dependency graph holds the metadata syncgc uses, so spec, status and managedFields of
 * tracked objects are never kept in memory. Handlers therefore only ever use the objects the
 * informer received, never ones read back from this store.
 */
final class SlimItemStore implements ItemStore<GenericKubernetesResource> {
  private record Entry(String namespace, String name, String uid, String resourceVersion) {}

  private final ConcurrentMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final String apiVersion;
  private final String kind;

  SlimItemStore(String apiVersion, String kind) {
    this.apiVersion = apiVersion;
    this.kind = kind;
  }

  @Override
  public String getKey(GenericKubernetesResource obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
    ObjectMeta m = obj.getMetadata();
    return expand(entries.put(key,
        new Entry(Interner.intern(m.getNamespace()), m.getName(), m.getUid(), m.getResourceVersion())));
  }

  @Override
  public GenericKubernetesResource remove(String key) {
    return expand(entries.remove(key));
  }

  @Override
  public Stream<String> keySet() {
    return entries.keySet().stream();
  }

  @Override
  public Stream<GenericKubernetesResource> values() {
    return entries.values().stream().map(this::expand);
  }

  @Override
  public int size() {
    return entries.size();
  }

  /**
   * False, so that the informer hands every listed object to the handlers as it arrives: with a
   * full-state store it would hand over this store's slim copies instead, after the list.
   */
  @Override
  public boolean isFullState() {
    return false;
  }

  @Override
  public GenericKubernetesResource get(String key) {
    return expand(entries.get(key));
  }

  private GenericKubernetesResource expand(Entry e) {
    if (e == null) {
      return null;
    }
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(apiVersion);
    r.setKind(kind);
    ObjectMeta m = new ObjectMeta();
    m.setNamespace(e.namespace());
    m.setName(e.name());
    m.setUid(e.uid());
    m.setResourceVersion(e.resourceVersion());
    r.setMetadata(m);
    return r;
  }
}
