package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Scenario.Action;
import dev.syncgc.e2e.soak.Scenario.Shape;
import dev.syncgc.e2e.soak.SoakObject.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Seeded random scenarios: trees of depth up to 4 and fan-out up to 8 with diamonds, rings (under
 * the tree, and kept by an outside owner), a second solid owner, another controller's finalizer,
 * deletion waves, Pods, invalid owner references (to an owner in another namespace, of an unknown
 * kind, a namespaced owner of a cluster-scoped object); opted in by annotation or policy, changed
 * before or during the deletion. The same seed gives the same round.
 *
 * <p>Usage edges ({@code syncgc.dev/uses}, SPEC "In use") are drawn from a second Random of their
 * own, once a round's ownership is drawn: a seed gives the ownership worlds, faults and instants it
 * gave before usage existed, with edges added. They go only where the model stays simple: between
 * objects a synchronous cascade without a short deadline deletes, in the same scenario (so a user
 * never outlives what it uses), some of them in a ring of use. Edges beyond one cascade (across
 * rings, Orphan owners, users outside a cascade, namespace deletions) come from {@link WideUses},
 * from a third Random, after these: {@link #wide(Random)}.
 */
final class Generator {
  static final String SYNCHRONOUS = "Synchronous";
  static final String ORPHAN = "Orphan";
  static final String KEEP = "Keep";
  static final String RELEASE = "Release";
  /** How long another controller holds the dependent of a scenario with a short deadline, once it is marked deleted. */
  static final long HELD_MILLIS = 8000;

  /** {@code syncgc.dev/uses} (SpecNames has none: the soak writes it as users do). */
  static final String USES = "syncgc.dev/uses";
  /** {@code syncgc.dev/users-from}: a cluster-scoped object a namespaced user holds allows every namespace. */
  static final String USERS_FROM = "syncgc.dev/users-from";
  /** Mixed into the seed for the usage draws, so that they do not follow the ownership draws. */
  private static final long USAGE_SALT = 0x7573657300000000L; // "uses"
  /** Mixed into the seed for the draws of {@link WideUses}: the usage draws stay as they were. */
  private static final long WIDE_SALT = 0x7769646500000000L; // "wide"

  private final Random random;
  /** The usage draws, or null: no usage edges. */
  private final Random usage;
  private final int maxObjects;
  /**
   * Whether edges on a cycle of use ({@link Oracle#RING_OF_USE}, {@link Oracle#MIXED_CYCLE}: the
   * objects are released as a unit) are kept.
   */
  private boolean useCycles = true;
  /** The draws of the edges beyond one cascade ({@link WideUses}), or null: none. */
  private Random wide;

  /** Ownership only, no usage edges: the worlds every seed gave before usage edges existed. */
  Generator(Random random, int maxObjects) {
    this(random, null, maxObjects);
  }

  /**
   * @param usage the usage draws ({@link #usageRandom(long)} of the seed), or null for none
   * @param maxObjects the most objects one scenario's tree has (rings and extras come on top)
   */
  Generator(Random random, Random usage, int maxObjects) {
    this.random = random;
    this.usage = usage;
    this.maxObjects = Math.max(4, maxObjects);
  }

  /**
   * Without cycles of use: the edges the model finds on a ring of use or on a mixed cycle of
   * ownership and use (users and what they use sharing a dependent, among others) are drawn, then
   * dropped before the annotation is written. The draws are the same.
   */
  Generator useCycles(boolean keep) {
    this.useCycles = keep;
    return this;
  }

  /**
   * Usage edges beyond one synchronous cascade ({@link WideUses}), drawn from {@code draws} once
   * every other draw of the round is made: the rounds are those of the same seed without them, with
   * edges and outside users added.
   */
  Generator wide(Random draws) {
    this.wide = draws;
    return this;
  }

  /** The draws of {@link #wide(Random)} for a seed: a Random of their own, derived from the seed. */
  static Random wideRandom(long seed) {
    return new Random(new SplittableRandom(seed ^ WIDE_SALT).nextLong());
  }

  /** The usage draws of a seed: a Random of their own, derived from the seed. */
  static Random usageRandom(long seed) {
    return new Random(new SplittableRandom(seed ^ USAGE_SALT).nextLong());
  }

  /** A round: its scenarios, the cluster-scoped keepers (solid outside owners) and the misc objects. */
  record Round(int number, List<Scenario> scenarios, List<SoakObject> keepers, String miscNamespace,
      List<SoakObject> misc) {
    List<SoakObject> all() {
      List<SoakObject> out = new ArrayList<>(keepers);
      scenarios.forEach(s -> out.addAll(s.objects));
      out.addAll(misc);
      return out;
    }
  }

  Round round(String prefix, int number, int scenarios) {
    String tag = prefix + "-r" + number;
    List<SoakObject> keepers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      keepers.add(new SoakObject(Kind.CLUSTER_WIDGET, null, tag + "-keeper-" + i));
    }
    String misc = tag + "-misc";
    List<SoakObject> miscObjects = new ArrayList<>();
    List<Scenario> out = new ArrayList<>();
    for (int i = 0; i < scenarios; i++) {
      out.add(scenario(tag + "-s" + i, keepers, misc, miscObjects));
    }
    Round round = new Round(number, out, keepers, misc, miscObjects);
    if (usage != null) {
      Oracle oracle = new Oracle(round.all());
      for (Scenario s : out) {
        uses(s, oracle);
      }
    }
    if (wide != null) {
      WideUses beyond = new WideUses(wide, new Oracle(round.all()));
      out.forEach(beyond::add);
    }
    return round;
  }

  /**
   * Usage edges inside one synchronous scenario without a short deadline, between objects its
   * cascade deletes (the raced dependent aside: it does not exist before the action): in three
   * scenarios of four, 1 to 5 random edges (a user may own what it uses, or be owned by it, or sit in
   * another subtree or wave), and in one of three of those a ring of use of 2 or 3 (each uses the
   * next). Written into the annotation with the kind named as kubectl takes it, in any of its forms.
   */
  private void uses(Scenario s, Oracle oracle) {
    if (!s.synchronousRoot() || s.mode() != Scenario.Mode.SYNC || s.timesOut()) {
      return;
    }
    Set<SoakObject> deleted = oracle.synchronous(s.root);
    List<SoakObject> candidates = s.objects.stream().filter(deleted::contains).filter(o -> o != s.raced).toList();
    if (candidates.size() < 2 || usage.nextInt(4) == 0) {
      return;
    }
    int edges = 1 + usage.nextInt(Math.min(5, candidates.size()));
    for (int e = 0; e < edges; e++) {
      use(candidates.get(usage.nextInt(candidates.size())), candidates.get(usage.nextInt(candidates.size())));
    }
    if (usage.nextInt(3) == 0) {
      List<SoakObject> ring = new ArrayList<>(candidates);
      Collections.shuffle(ring, usage);
      ring = ring.subList(0, Math.min(ring.size(), 2 + usage.nextInt(2)));
      for (int i = 0; i < ring.size(); i++) {
        use(ring.get(i), ring.get((i + 1) % ring.size()));
      }
    }
    Map<SoakObject, List<String>> names = new HashMap<>();
    Map<SoakObject, String> separators = new HashMap<>();
    for (SoakObject o : candidates) {
      if (!o.uses.isEmpty()) {
        List<String> named = new ArrayList<>();
        o.uses.forEach(u -> named.add(kubectlName(u)));
        names.put(o, named);
        separators.put(o, usage.nextBoolean() ? ", " : ",");
      }
    }
    if (!useCycles) { // after every draw: the same draws either way
      oracle.expect(s).unjudgedUses().stream().filter(u -> !u.why().equals(Oracle.OWNS_WHAT_IT_USES)).forEach(u -> {
        names.get(u.user()).remove(u.user().uses.indexOf(u.used()));
        u.user().uses.remove(u.used());
      });
    }
    for (SoakObject o : candidates) {
      if (!o.uses.isEmpty()) {
        o.annotations.put(USES, String.join(separators.get(o), names.get(o)));
        for (SoakObject used : o.uses) {
          if (o.kind.namespaced && !used.kind.namespaced) { // held only from the namespaces it allows
            used.annotations.put(USERS_FROM, "*");
          }
        }
      }
    }
  }

  /**
   * {@code user} names {@code used}, unless it is itself, named already, or out of its reach: a
   * namespaced object names objects of its own namespace or cluster-scoped ones, a cluster-scoped
   * object only cluster-scoped ones (SPEC "In use").
   */
  static void use(SoakObject user, SoakObject used) {
    boolean reachable = used.kind.namespaced ? user.kind.namespaced && used.namespace.equals(user.namespace)
        : true;
    if (user != used && reachable && !user.uses.contains(used)) {
      user.uses.add(used);
    }
  }

  /** KIND[.GROUP]/NAME as kubectl takes it: kind, singular or plural resource, short name, any case. */
  private String kubectlName(SoakObject o) {
    return kubectlName(o, usage);
  }

  /** {@link #kubectlName(SoakObject)}, drawn from {@code draws}. */
  static String kubectlName(SoakObject o, Random draws) {
    String[] kinds = switch (o.kind) {
      case WIDGET -> new String[] {"widgets.test.syncgc.dev", "widget.test.syncgc.dev", "Widget.test.syncgc.dev"};
      case CLUSTER_WIDGET -> new String[] {"clusterwidgets.test.syncgc.dev", "ClusterWidget.test.syncgc.dev"};
      case CONFIGMAP -> new String[] {"configmap", "configmaps", "ConfigMap", "cm"};
      case POD -> new String[] {"pod", "pods", "Pod", "po"};
    };
    return kinds[draws.nextInt(kinds.length)] + "/" + o.name;
  }

  private Scenario scenario(String id, List<SoakObject> keepers, String misc, List<SoakObject> miscObjects) {
    Shape shape = pick(Shape.values(), new int[] {5, 2, 2, 1, 2, 1, 1});
    Action action = switch (shape) {
      case SYNC_ANNOTATION -> pick(new Action[] {Action.DELETE, Action.ORPHAN_CASCADE, Action.NAMESPACE,
          Action.RACE, Action.UNANNOTATE, Action.REORPHAN}, new int[] {5, 1, 1, 3, 1, 1});
      case SYNC_POLICY -> pick(new Action[] {Action.DELETE, Action.RACE, Action.DROP_POLICY}, new int[] {3, 2, 1});
      case ORPHAN_ANNOTATION -> pick(new Action[] {Action.DELETE, Action.NAMESPACE, Action.UNORPHAN},
          new int[] {3, 1, 2});
      case ORPHAN_POLICY -> pick(new Action[] {Action.DELETE, Action.NAMESPACE, Action.POLICY_TO_SYNC},
          new int[] {3, 1, 2});
      case BUILTIN -> pick(new Action[] {Action.DELETE, Action.FOREGROUND, Action.NAMESPACE}, new int[] {2, 2, 1});
      case CLUSTER_SYNC -> pick(new Action[] {Action.DELETE, Action.RACE}, new int[] {2, 1});
      case LONE_RING -> Action.NONE;
    };
    boolean cluster = shape == Shape.CLUSTER_SYNC;
    Scenario s = new Scenario(id, shape, action, cluster ? null : id);
    if (shape == Shape.LONE_RING) {
      List<SoakObject> ring = ring(s, Kind.WIDGET, 2 + random.nextInt(4));
      s.root = ring.get(0);
      return s;
    }
    Kind inner = cluster ? Kind.CLUSTER_WIDGET : Kind.WIDGET;
    s.root = add(s, inner, "root");
    switch (shape) {
      case SYNC_ANNOTATION, CLUSTER_SYNC -> s.root.annotations.put("syncgc.dev/propagation", SYNCHRONOUS);
      case ORPHAN_ANNOTATION -> s.root.annotations.put("syncgc.dev/propagation", ORPHAN);
      case SYNC_POLICY, ORPHAN_POLICY -> {
        s.policy = id;
        s.root.labels.put("soak.syncgc.dev/opt-in", id);
      }
      case BUILTIN -> {
        if (random.nextBoolean()) { // opted out explicitly: the same as not opted in
          s.root.annotations.put("syncgc.dev/propagation", "Background");
        }
      }
      default -> { }
    }
    List<List<SoakObject>> levels = tree(s, inner, cluster);
    List<SoakObject> nodes = levels.stream().flatMap(List::stream).toList();
    List<SoakObject> innerNodes = nodes.stream().filter(n -> n.kind == inner).toList();
    // diamonds: a second owner higher up (never below, so no cycle)
    for (int d = 0; d < 1 + random.nextInt(3); d++) {
      int level = 2 + random.nextInt(Math.max(1, levels.size() - 2));
      if (level < levels.size() && !levels.get(level).isEmpty()) {
        SoakObject c = levels.get(level).get(random.nextInt(levels.get(level).size()));
        List<SoakObject> above = levels.subList(1, level).stream().flatMap(List::stream)
            .filter(o -> o.kind == inner && !c.owners.contains(o)).toList();
        if (!above.isEmpty()) {
          c.owners.add(above.get(random.nextInt(above.size())));
        }
      }
    }
    // a ring under the tree, and a ring kept by an outside owner
    if (random.nextInt(3) > 0) {
      List<SoakObject> ring = ring(s, inner, 2 + random.nextInt(4));
      ring.get(0).owners.add(0, innerNodes.get(random.nextInt(innerNodes.size())));
      SoakObject leaf = add(s, cluster ? Kind.CLUSTER_WIDGET : Kind.CONFIGMAP, "ring-leaf");
      leaf.owners.add(ring.get(ring.size() - 1));
    }
    if (random.nextInt(3) == 0) {
      List<SoakObject> ring = ring(s, inner, 2 + random.nextInt(3));
      ring.get(0).owners.add(0, innerNodes.get(random.nextInt(innerNodes.size())));
      ring.get(1).owners.add(keepers.get(random.nextInt(keepers.size())));
    }
    // a dependent with a second, solid owner
    if (random.nextBoolean()) {
      SoakObject c = nodes.get(random.nextInt(nodes.size()));
      c.owners.add(keepers.get(random.nextInt(keepers.size())));
    }
    // another controller's finalizer
    for (int h = 0; h < random.nextInt(3); h++) {
      nodes.get(random.nextInt(nodes.size())).holdMillis = random.nextInt(3000);
    }
    // deletion waves among the root's children (synchronous shapes)
    if ((shape == Shape.SYNC_ANNOTATION || shape == Shape.SYNC_POLICY) && random.nextInt(3) == 0) {
      for (SoakObject c : levels.get(1)) {
        if (c.owners.size() == 1) {
          c.wave = random.nextInt(4) - 1;
          c.annotations.put("syncgc.dev/deletion-wave", Integer.toString(c.wave));
        }
      }
    }
    if ((shape == Shape.SYNC_ANNOTATION || shape == Shape.SYNC_POLICY) && action == Action.DELETE
        && random.nextInt(3) == 0) {
      // a deadline far shorter than the hold of a dependent only the root owns: Release lets the
      // root go at the deadline, Keep holds it until the dependent is gone; by annotation on the
      // root, or by its policy (spec.timeout, spec.onTimeout)
      s.deadline = random.nextBoolean() ? Scenario.Deadline.KEEP : Scenario.Deadline.RELEASE;
      if (shape == Shape.SYNC_ANNOTATION) {
        s.root.annotations.put("syncgc.dev/timeout", Oracle.TIMEOUT_MILLIS / 1000 + "s");
        if (s.deadline == Scenario.Deadline.KEEP) {
          s.root.annotations.put("syncgc.dev/on-timeout", KEEP);
        } else if (random.nextBoolean()) {
          s.root.annotations.put("syncgc.dev/on-timeout", RELEASE); // the default, said explicitly
        }
      }
      s.held = add(s, inner, "held");
      s.held.owners.add(s.root);
      s.held.holdMillis = HELD_MILLIS;
      s.root.holdMillis = -1; // the root's own release is the operator's alone: its timing is judged
    }
    if (s.mode() != Scenario.Mode.BUILTIN && random.nextInt(3) == 0) {
      // a reference Kubernetes can never resolve, on an object a cascade reaches through a valid
      // owner: syncgc never deletes it (nor, so, what it owns), only drops the reference to the
      // owner it deletes. Not where the built-in collector deletes: it cannot classify the object's
      // references, so a foreground deletion above it would wait for ever (as it does in Kubernetes)
      List<SoakObject> below = nodes.stream().filter(n -> n != s.root).toList();
      if (!below.isEmpty()) {
        SoakObject o = below.get(random.nextInt(below.size()));
        String uid = new UUID(random.nextLong(), random.nextLong()).toString();
        o.unresolvable.add(o.kind.namespaced
            ? new SoakObject.Unresolvable("nothing.soak.syncgc.dev/v1", "Nothing", "absent", uid, "unknown kind")
            : new SoakObject.Unresolvable(Kind.WIDGET.apiVersion, Kind.WIDGET.kind, "absent", uid,
                "namespaced owner of a cluster-scoped object"));
      }
    }
    if (action == Action.RACE) {
      // created by the action itself, immediately before the root's DELETE
      s.raced = add(s, cluster ? Kind.CLUSTER_WIDGET : Kind.CONFIGMAP, "raced");
      s.raced.owners.add(innerNodes.get(random.nextInt(innerNodes.size())));
    }
    if (!cluster && random.nextInt(3) == 0) {
      s.root.annotations.put("syncgc.dev/grace-period-seconds", "1");
    }
    if (!cluster && random.nextInt(3) == 0) {
      // a reference Kubernetes considers invalid (owner in another namespace) is never followed
      SoakObject invalid = new SoakObject(Kind.CONFIGMAP, misc, id + "-invalid-ref");
      invalid.owners.add(keepers.get(0));
      invalid.invalidOwner = s.root;
      miscObjects.add(invalid);
    }
    return s;
  }

  /** Levels of a random tree under the root: depth 1 to 4, fan-out 1 to 8, at most maxObjects. */
  private List<List<SoakObject>> tree(Scenario s, Kind inner, boolean cluster) {
    List<List<SoakObject>> levels = new ArrayList<>(List.of(List.of(s.root)));
    int depth = 1 + random.nextInt(4);
    int budget = 3 + random.nextInt(maxObjects - 3);
    for (int level = 1; level <= depth && budget > 0; level++) {
      List<SoakObject> next = new ArrayList<>();
      for (SoakObject parent : levels.get(level - 1)) {
        if (parent.kind != inner) {
          continue;
        }
        int fanOut = 1 + random.nextInt(8);
        for (int i = 0; i < fanOut && budget > 0; i++, budget--) {
          Kind kind = level == depth || random.nextInt(3) == 0 ? leafKind(cluster) : inner;
          SoakObject c = add(s, kind, "n" + level + "-" + next.size());
          c.owners.add(parent);
          next.add(c);
        }
      }
      if (next.isEmpty()) {
        break;
      }
      levels.add(next);
    }
    return levels;
  }

  private Kind leafKind(boolean cluster) {
    if (cluster) {
      return Kind.CLUSTER_WIDGET;
    }
    return switch (random.nextInt(4)) {
      case 0 -> Kind.POD;
      case 1 -> Kind.CONFIGMAP;
      default -> Kind.WIDGET;
    };
  }

  /** A ring x0 -> x1 -> ... -> x0 (each owns the next): x0 names the last as owner. */
  private List<SoakObject> ring(Scenario s, Kind kind, int size) {
    List<SoakObject> ring = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      SoakObject x = add(s, kind, "ring" + s.objects.size() + "-" + i);
      if (i > 0) {
        x.owners.add(ring.get(i - 1));
      }
      ring.add(x);
    }
    ring.get(0).owners.add(ring.get(size - 1));
    return ring;
  }

  static SoakObject add(Scenario s, Kind kind, String name) {
    SoakObject o = new SoakObject(kind, s.namespace, s.namespace == null ? s.id + "-" + name : name);
    s.objects.add(o);
    return o;
  }

  private <T> T pick(T[] values, int[] weights) {
    int total = 0;
    for (int w : weights) {
      total += w;
    }
    int r = random.nextInt(total);
    for (int i = 0; i < values.length; i++) {
      r -= weights[i];
      if (r < 0) {
        return values[i];
      }
    }
    return values[values.length - 1];
  }
}
