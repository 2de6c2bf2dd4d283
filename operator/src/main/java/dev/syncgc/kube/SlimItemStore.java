package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The informer's own store, reduced to what the informer needs (identity and resourceVersion):
 * the dependency graph holds the metadata syncgc uses, so spec, status and managedFields of
 * tracked objects are never kept in memory. Handlers therefore only ever use the objects the
 * informer received, never ones read back from this store.
 *
 * <p>Entries are filed by namespace, then name, so that no "namespace/name" key string is kept per
 * object; a decimal resourceVersion (what the API server gives) is kept as a number. About 100 bytes
 * less per tracked object than a flat map of keys.
 */
final class SlimItemStore implements ItemStore<GenericKubernetesResource> {
  /** @param resourceVersionText null when the resourceVersion is the decimal number resourceVersion */
  private record Entry(String name, String uid, long resourceVersion, String resourceVersionText) {
    static Entry of(String name, String uid, String resourceVersion) {
      long n = decimal(resourceVersion);
      return new Entry(name, uid, n, n < 0 ? resourceVersion : null);
    }

    String resourceVersionString() {
      return resourceVersionText != null ? resourceVersionText : Long.toString(resourceVersion);
    }
  }

  private static final String CLUSTER = "";

  private final ConcurrentMap<String, ConcurrentMap<String, Entry>> byNamespace = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();
  private final String apiVersion;
  private final String kind;

  SlimItemStore(String apiVersion, String kind) {
    this.apiVersion = apiVersion;
    this.kind = kind;
  }

  /** The number a resourceVersion spells in plain decimal without leading zeros, or -1. */
  static long decimal(String s) {
    if (s == null || s.isEmpty() || s.length() > 18 || (s.length() > 1 && s.charAt(0) == '0')) {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  @Override
  public String getKey(GenericKubernetesResource obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public GenericKubernetesResource put(String key, GenericKubernetesResource obj) {
    ObjectMeta m = obj.getMetadata();
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? CLUSTER : Interner.intern(key.substring(0, slash));
    String name = key.substring(slash + 1);
    if (name.equals(m.getName())) {
      name = m.getName(); // the instance the graph holds too
    }
    String filed = name;
    Entry entry = Entry.of(name, m.getUid(), m.getResourceVersion());
    Entry[] previous = new Entry[1];
    // per namespace under the map's lock for it, so that an emptied namespace can go (remove)
    byNamespace.compute(namespace, (k, names) -> {
      ConcurrentMap<String, Entry> n = names == null ? new ConcurrentHashMap<>() : names;
      previous[0] = n.put(filed, entry);
      return n;
    });
    if (previous[0] == null) {
      size.incrementAndGet();
    }
    return expand(namespace, previous[0]);
  }

  @Override
  public GenericKubernetesResource remove(String key) {
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? CLUSTER : key.substring(0, slash);
    String name = key.substring(slash + 1);
    Entry[] removed = new Entry[1];
    byNamespace.computeIfPresent(namespace, (k, names) -> {
      removed[0] = names.remove(name);
      return names.isEmpty() ? null : names;
    });
    if (removed[0] == null) {
      return null;
    }
    size.decrementAndGet();
    return expand(namespace, removed[0]);
  }

  @Override
  public Stream<String> keySet() {
    return byNamespace.entrySet().stream().flatMap(ns -> ns.getValue().keySet().stream()
        .map(name -> key(ns.getKey(), name)));
  }

  @Override
  public Stream<GenericKubernetesResource> values() {
    return byNamespace.entrySet().stream().flatMap(ns -> ns.getValue().entrySet().stream()
        .map(e -> expand(ns.getKey(), e.getValue())));
  }

  @Override
  public int size() {
    return size.get();
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
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? CLUSTER : key.substring(0, slash);
    String name = key.substring(slash + 1);
    Map<String, Entry> names = byNamespace.get(namespace);
    return names == null ? null : expand(namespace, names.get(name));
  }

  /**
   * Whether the store holds the object with this uid under this namespace (null: cluster-scoped) and
   * name; not when another object (another uid) now has the name.
   */
  boolean holds(String namespace, String name, String uid) {
    Map<String, Entry> names = byNamespace.get(namespace == null ? CLUSTER : namespace);
    Entry e = names == null ? null : names.get(name);
    return e != null && e.uid() != null && e.uid().equals(uid);
  }

  private static String key(String namespace, String name) {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }

  private GenericKubernetesResource expand(String namespace, Entry e) {
    if (e == null) {
      return null;
    }
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(apiVersion);
    r.setKind(kind);
    ObjectMeta m = new ObjectMeta();
    m.setNamespace(namespace.isEmpty() ? null : namespace);
    m.setName(e.name());
    m.setUid(e.uid());
    m.setResourceVersion(e.resourceVersionString());
    r.setMetadata(m);
    return r;
  }
}
