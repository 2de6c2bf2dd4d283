package dev.syncgc.cli.render;

import dev.syncgc.cli.cluster.Readiness;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The ownership tree below (or the chain above) one object, through the graph's valid references:
 * an object reached twice (a diamond) is shown once and then named as shown above; a reference back
 * to an object on the current path (a cycle) is marked with the path. Beside ownership, each object
 * shown says what it uses and who uses it (SPEC "In use"; {@link UsageView}), on lines of their own.
 */
public final class TreeView {
  /**
   * One line of the tree.
   *
   * @param usage what it uses and its users (empty on a line that only names an object shown above)
   */
  public record Node(ObjectMetadata object, String state, Readiness.Ready ready, String age, Integer wave, String note,
      List<Node> children, List<UsageView.Link> usage) {
    /** The objects on its lines and its children's, itself first. */
    public List<ObjectMetadata> objects() {
      List<ObjectMetadata> all = new ArrayList<>(List.of(object));
      children.forEach(c -> all.addAll(c.objects()));
      return all;
    }

    /** @param childrenKey what the children are: {@code dependents} below, {@code owners} above */
    public Map<String, Object> model(String childrenKey) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("apiVersion", object.ref().apiVersion());
      m.put("kind", object.ref().kind());
      if (object.ref().namespace() != null) {
        m.put("namespace", object.ref().namespace());
      }
      m.put("name", object.ref().name());
      m.put("uid", object.uid());
      m.put("state", state);
      if (ready != null) {
        m.put("ready", ready.status());
        if (ready.reason() != null) {
          m.put("readyReason", ready.reason());
        }
      }
      m.put("age", age);
      m.put("finalizers", object.finalizers());
      if (wave != null) {
        m.put("deletionWave", wave);
      }
      if (note != null) {
        m.put("note", note);
      }
      m.put("uses", usage.stream().filter(UsageView.Link::uses).map(UsageView.Link::model).toList());
      m.put("usedBy", usage.stream().filter(l -> !l.uses()).map(UsageView.Link::model).toList());
      m.put(childrenKey, children.stream().map(c -> c.model(childrenKey)).toList());
      return m;
    }
  }

  /** Children in a stable order a reader can scan: kind, then namespace, then name. */
  private static final Comparator<ObjectMetadata> ORDER = Comparator.comparing((ObjectMetadata m) -> m.ref().kind())
      .thenComparing(m -> m.ref().namespace() == null ? "" : m.ref().namespace()).thenComparing(m -> m.ref().name());

  private final DependencyGraph graph;
  private final Function<String, Instant> createdAt;
  private final Function<ObjectMetadata, Integer> waveOf;
  private final Function<ObjectMetadata, String> keptBecause;
  private final Function<ObjectMetadata, Readiness.Ready> readyOf;
  private final Instant now;
  private final UsageView usage;
  private final Set<String> shown = new HashSet<>();

  /** @param waveOf an object's deletion wave, null when it has none (wave 0) */
  public TreeView(DependencyGraph graph, Function<String, Instant> createdAt, Function<ObjectMetadata, Integer> waveOf,
      Instant now) {
    this(graph, createdAt, waveOf, o -> null, now);
  }

  /** @param keptBecause why a syncgc cascade would keep the object (SPEC "Keep one dependent"), or null: its note */
  public TreeView(DependencyGraph graph, Function<String, Instant> createdAt, Function<ObjectMetadata, Integer> waveOf,
      Function<ObjectMetadata, String> keptBecause, Instant now) {
    this(graph, createdAt, waveOf, keptBecause, o -> null, now);
  }

  /** @param readyOf the object's Ready condition (kubectl-tree's READY), null when it has none */
  public TreeView(DependencyGraph graph, Function<String, Instant> createdAt, Function<ObjectMetadata, Integer> waveOf,
      Function<ObjectMetadata, String> keptBecause, Function<ObjectMetadata, Readiness.Ready> readyOf, Instant now) {
    this.keptBecause = keptBecause;
    this.readyOf = readyOf;
    this.graph = graph;
    this.createdAt = createdAt;
    this.waveOf = waveOf;
    this.now = now;
    this.usage = new UsageView(graph);
  }

  /** The object and everything below it. */
  public Node below(ObjectMetadata root) {
    return below(root, new ArrayList<>());
  }

  private Node below(ObjectMetadata o, List<ObjectMetadata> path) {
    int onPath = indexOf(path, o.uid());
    if (onPath >= 0) {
      List<String> ring = new ArrayList<>();
      path.subList(onPath, path.size()).forEach(p -> ring.add(name(p)));
      ring.add(name(o));
      return new Node(o, state(o), readyOf.apply(o), age(o), waveOf.apply(o), "cycle: " + String.join(" -> ", ring),
          List.of(), List.of());
    }
    if (!shown.add(o.uid())) {
      return new Node(o, state(o), readyOf.apply(o), age(o), waveOf.apply(o), "shown above: it has several owners here",
          List.of(), List.of());
    }
    path.add(o);
    List<Node> children = new ArrayList<>();
    for (ObjectMetadata d : graph.dependentsOf(o.uid()).stream().sorted(ORDER).toList()) {
      children.add(below(d, path));
    }
    path.remove(path.size() - 1);
    return new Node(o, state(o), readyOf.apply(o), age(o), waveOf.apply(o), keptBecause.apply(o), children, usage.of(o));
  }

  /** The object and the chain of owners above it. */
  public Node above(ObjectMetadata o) {
    return above(o, new ArrayList<>());
  }

  private Node above(ObjectMetadata o, List<ObjectMetadata> path) {
    if (indexOf(path, o.uid()) >= 0) {
      return new Node(o, state(o), readyOf.apply(o), age(o), waveOf.apply(o), "cycle", List.of(), List.of());
    }
    path.add(o);
    List<Node> owners = new ArrayList<>();
    for (OwnerLink link : o.owners()) {
      ObjectMetadata owner = graph.get(link.uid());
      if (owner != null) {
        owners.add(above(owner, path));
      }
    }
    path.remove(path.size() - 1);
    return new Node(o, state(o), readyOf.apply(o), age(o), waveOf.apply(o), keptBecause.apply(o), owners, usage.of(o));
  }

  /** SPEC's states. */
  public static String state(ObjectMetadata o) {
    if (!o.beingDeleted()) {
      return "alive";
    }
    return o.hasFinalizer(Names.FINALIZER) ? "marked as deleted" : "to delete";
  }

  private String age(ObjectMetadata o) {
    Instant at = createdAt.apply(o.uid());
    return at == null ? "?" : human(Duration.between(at, now));
  }

  public static String human(Duration d) {
    long s = Math.max(0, d.toSeconds());
    return s < 120 ? s + "s" : s < 7200 ? s / 60 + "m" : s < 172800 ? s / 3600 + "h" : s / 86400 + "d";
  }

  public static String name(ObjectMetadata o) {
    return o.ref().kind() + "/" + o.ref().name();
  }

  private static int indexOf(List<ObjectMetadata> path, String uid) {
    for (int i = 0; i < path.size(); i++) {
      if (path.get(i).uid().equals(uid)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The tree as text lines, with the usual branches; under an object's line, what it uses and its
   * users, one a line ({@code ⇢ uses}, {@code ⇠ used by}), before its children.
   */
  public static List<String> lines(Node root) {
    List<String> out = new ArrayList<>();
    out.add(line(root));
    usage(root, "", out);
    children(root, "", out);
    return out;
  }

  private static void children(Node node, String indent, List<String> out) {
    for (int i = 0; i < node.children().size(); i++) {
      Node c = node.children().get(i);
      boolean last = i == node.children().size() - 1;
      out.add(indent + (last ? "└── " : "├── ") + line(c));
      usage(c, indent + (last ? "    " : "│   "), out);
      children(c, indent + (last ? "    " : "│   "), out);
    }
  }

  private static void usage(Node node, String indent, List<String> out) {
    String trunk = node.children().isEmpty() ? "   " : "│  "; // the line down to its children goes on
    node.usage().forEach(l -> out.add(indent + trunk + l.text(node.object())));
  }

  /** kubectl-tree's READY: {@code Ready=True}, else the status with its reason; nothing without the condition. */
  private static String ready(Readiness.Ready r) {
    return r == null ? "" : "  Ready=" + r.status() + (r.status().equals("True") || r.reason() == null ? ""
        : " (" + r.reason() + ")");
  }

  private static String line(Node n) {
    List<String> others = new ArrayList<>(n.object().finalizers());
    String stateText = n.state().equals("alive") ? n.state() : Output.color(n.state(), "33");
    return name(n.object()) + "  " + stateText + ready(n.ready()) + "  " + n.age() + (n.wave() == null ? "" : "  wave " + n.wave())
        + (others.isEmpty() ? "" : "  finalizers " + others)
        + (n.note() == null ? "" : "  (" + n.note() + ")");
  }
}
