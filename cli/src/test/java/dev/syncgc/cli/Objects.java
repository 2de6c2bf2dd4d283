package dev.syncgc.cli;

import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Widgets in namespace {@code ns}, named by their uid, for the plugin's tests. */
public final class Objects {
  public static final KindInfo KINDS = new KindInfo() {
    @Override
    public Scope scope(OwnerLink link) {
      return Scope.NAMESPACED;
    }

    @Override
    public boolean tracked(OwnerLink link) {
      return true;
    }
  };

  private final List<ObjectMetadata> all = new ArrayList<>();

  public ObjectMetadata add(String uid, Map<String, String> annotations, List<String> finalizers, String... owners) {
    return addIn("ns", uid, annotations, finalizers, owners);
  }

  /** A Widget in {@code namespace}, named by its uid. */
  public ObjectMetadata addIn(String namespace, String uid, Map<String, String> annotations, List<String> finalizers,
      String... owners) {
    List<OwnerLink> links = new ArrayList<>();
    for (String o : owners) {
      links.add(new OwnerLink(o, "test.syncgc.dev/v1", "Widget", o));
    }
    ObjectMetadata m = new ObjectMetadata(new ObjectRef("test.syncgc.dev/v1", "Widget", namespace, uid, uid), 1, links,
        finalizers, null, null, annotations, Map.of());
    all.add(m);
    return m;
  }

  public ObjectMetadata add(String uid, String... owners) {
    return add(uid, Map.of(), List.of(), owners);
  }

  /** A root opted in with this propagation, carrying the finalizer as the operator would have added it. */
  public ObjectMetadata root(String uid, String propagation) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put(Names.PROPAGATION, propagation);
    return add(uid, a, List.of(Names.FINALIZER));
  }

  public List<ObjectMetadata> all() {
    return List.copyOf(all);
  }
}
