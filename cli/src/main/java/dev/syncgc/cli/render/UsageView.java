package dev.syncgc.cli.render;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.usage.Use;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * SPEC "In use", beside ownership: what an object names in {@code syncgc.dev/uses} (resolved as the
 * operator resolves it, by the graph's kinds) and the objects that name it. Marked apart from
 * ownership: {@code ⇢ uses}, {@code ⇠ used by}.
 */
public final class UsageView {
  public static final String USES = "⇢ uses ";
  public static final String USED_BY = "⇠ used by ";

  /**
   * One usage edge seen from an object: it {@code uses} {@code other} (null when the entry names no
   * object here: one not there (yet), or, with {@link Use#error}, nothing at all), or {@code other}
   * is one of its users ({@code use} null).
   */
  public record Link(boolean uses, ObjectMetadata other, Use use) {
    /** The line's words, names relative to {@code from}'s namespace. */
    public String text(ObjectMetadata from) {
      if (!uses) {
        return USED_BY + name(other.ref(), from) + "  " + TreeView.state(other);
      }
      if (other != null) {
        return USES + name(other.ref(), from) + "  " + TreeView.state(other);
      }
      if (!use.valid()) {
        return USES + "nothing: " + use.error();
      }
      boolean here = use.namespace() == null || Objects.equals(use.namespace(), from.ref().namespace());
      return USES + use.kind() + "/" + (here ? "" : use.namespace() + "/") + use.name() + "  not there (yet)";
    }

    /** For scripts: the other object and its state, or what the entry names, or why it names nothing. */
    public Map<String, Object> model() {
      Map<String, Object> m = new LinkedHashMap<>();
      if (other != null) {
        m.putAll(ref(other.ref()));
        m.put("state", TreeView.state(other));
      } else if (use.valid()) {
        m.put("group", use.group());
        m.put("kind", use.kind());
        if (use.namespace() != null) {
          m.put("namespace", use.namespace());
        }
        m.put("name", use.name());
        m.put("state", "not there");
      } else {
        m.put("error", use.error());
      }
      return m;
    }
  }

  private final DependencyGraph graph;
  private Map<String, ObjectMetadata> byName; // group/kind/namespace/name -> object, made when first needed

  public UsageView(DependencyGraph graph) {
    this.graph = graph;
  }

  /** What {@code o} uses, in its annotation's order (entries that name nothing too), then its users. */
  public List<Link> of(ObjectMetadata o) {
    List<Link> links = new ArrayList<>(uses(o));
    graph.usersOf(o).forEach(u -> links.add(new Link(false, u, null)));
    return links;
  }

  /** What {@code user}'s {@code syncgc.dev/uses} names, each with the object it names if it is here. */
  public List<Link> uses(ObjectMetadata user) {
    List<Link> links = new ArrayList<>();
    for (Use use : graph.uses(user)) {
      links.add(new Link(true, use.valid() ? named(use) : null, use));
    }
    return links;
  }

  private ObjectMetadata named(Use use) {
    if (byName == null) {
      byName = new HashMap<>();
      for (ObjectMetadata o : graph.snapshot()) {
        byName.put(key(o.ref().group(), o.ref().kind(), o.ref().namespace(), o.ref().name()), o);
      }
    }
    ObjectMetadata o = byName.get(key(use.group(), use.kind(), use.namespace(), use.name()));
    return o != null && use.is(o.ref()) ? o : null;
  }

  private static String key(String group, String kind, String namespace, String name) {
    return group + "/" + kind + "/" + (namespace == null ? "" : namespace) + "/" + name;
  }

  /** {@code Kind/name}, with the namespace when it is not {@code from}'s (a cluster-scoped object's users). */
  static String name(ObjectRef r, ObjectMetadata from) {
    return Objects.equals(r.namespace(), from.ref().namespace()) || r.namespace() == null
        ? r.kind() + "/" + r.name() : r.kind() + "/" + r.namespace() + "/" + r.name();
  }

  /** An object's identity as the JSON and YAML outputs name it. */
  public static Map<String, Object> ref(ObjectRef r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("apiVersion", r.apiVersion());
    m.put("kind", r.kind());
    if (r.namespace() != null) {
      m.put("namespace", r.namespace());
    }
    m.put("name", r.name());
    m.put("uid", r.uid());
    return m;
  }
}
