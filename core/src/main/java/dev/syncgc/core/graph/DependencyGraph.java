package dev.syncgc.core.graph;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.UsersFrom;
import dev.syncgc.core.usage.Use;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The owner/dependent graph of every tracked object, keyed by uid. Objects only name their owners;
 * the graph keeps the reverse index. An owner that is referenced but not observed (not created yet,
 * already gone, or of an unwatched kind) is a virtual node, kept while something points at it.
 *
 * <p>Thread-safe: a method holds the graph's monitor for one object and its references, or for one
 * bounded section of a traversal ({@link #transitiveDependentCount}); only {@link #snapshot} (a
 * policy changed: rare) holds it for a pass over the whole graph.
 */
public final class DependencyGraph {
  private final NodeTable nodes = new NodeTable();
  private final Tombstones tombstones = new Tombstones();
  private final Usage usage = new Usage();
  private final KindInfo kinds;
  private final LinkRules rules;
  private int observed;
  /** Distinct owner uids named by each observed object, summed: the graph's edges as recorded. */
  private int ownerReferences;
  private volatile Function<ObjectMetadata, UsersFrom> usersFrom = o -> SettingsInForce.ofAnnotations(o).usersFrom();

  public DependencyGraph(KindInfo kinds) {
    this.kinds = kinds;
    this.rules = new LinkRules(kinds, nodes);
  }

  /**
   * Records an observed object. A version older than the one already held, or an object already
   * seen deleted, is ignored.
   *
   * @return the uids of the owners it named before or names now: their dependents changed
   */
  public synchronized Set<String> upsert(ObjectMetadata object) {
    if (tombstones.contains(object.uid())) {
      return Set.of();
    }
    Node node = nodes.getOrAdd(object.ref());
    ObjectMetadata previous = node.meta;
    if (previous != null && previous.resourceVersion() > object.resourceVersion()) {
      return Set.of();
    }
    object = nodes.shared(object);
    if (previous == null) {
      observed++;
    }
    usage.update(previous, object);
    node.meta = object;
    Set<String> affected = new LinkedHashSet<>();
    List<OwnerLink> now = NodeTable.distinctOwners(object);
    ownerReferences += now.size();
    if (previous != null) {
      List<OwnerLink> before = NodeTable.distinctOwners(previous);
      ownerReferences -= before.size();
      for (OwnerLink owner : before) {
        affected.add(owner.uid());
        if (!NodeTable.namesSameOwner(now, owner)) {
          nodes.detach(owner, node);
        }
      }
    }
    for (OwnerLink owner : now) {
      affected.add(owner.uid());
      nodes.attach(owner, node);
    }
    return affected;
  }

  /**
   * Records that an object is gone from the store.
   *
   * @return the uids of the owners it named: they may be waiting for it
   */
  public synchronized Set<String> remove(String uid) {
    tombstones.add(uid);
    return drop(uid);
  }

  private Set<String> drop(String uid) {
    Node node = nodes.get(uid);
    if (node == null || node.meta == null) {
      return Set.of();
    }
    List<OwnerLink> links = NodeTable.distinctOwners(node.meta);
    usage.update(node.meta, null);
    node.meta = null;
    observed--;
    ownerReferences -= links.size();
    nodes.dropIfUnused(node);
    Set<String> owners = new LinkedHashSet<>();
    for (OwnerLink owner : links) {
      nodes.detach(owner, node);
      owners.add(owner.uid());
    }
    return owners;
  }

  /**
   * Removes every observed object {@code gone} says is gone from the store (a fresh list no longer
   * holds it, its kind's CRD was deleted), as {@link #remove} does one: the caller must know, not
   * presume, that each is gone. One pass over the graph under its monitor, as {@link #snapshot}.
   */
  public synchronized Removal removeIf(Predicate<ObjectMetadata> gone) {
    return take(gone, true);
  }

  /**
   * Takes every observed object {@code unseen} selects out of the graph without recording it as
   * deleted: its kind is no longer tracked (no longer served, its CRD gone), and should the kind come
   * back, its objects are listed anew and must be taken in (a deleted one would be ignored for good).
   */
  public synchronized Removal forgetIf(Predicate<ObjectMetadata> unseen) {
    return take(unseen, false);
  }

  private Removal take(Predicate<ObjectMetadata> which, boolean deleted) {
    List<ObjectMetadata> taken = new ArrayList<>();
    for (Node node : nodes.all()) {
      if (node.meta != null && which.test(node.meta)) {
        taken.add(node.meta);
      }
    }
    Set<String> owners = new LinkedHashSet<>();
    for (ObjectMetadata o : taken) {
      owners.addAll(deleted ? remove(o.uid()) : drop(o.uid()));
    }
    return new Removal(List.copyOf(taken), owners);
  }

  /** Whether the graph has seen the object deleted (uids are never reused: it cannot come back). */
  public synchronized boolean seenDeleted(String uid) {
    return tombstones.contains(uid);
  }

  /**
   * Whether the graph holds this object at this version or a newer one, or has seen it deleted: a
   * listed copy would teach it nothing.
   */
  public synchronized boolean knows(String uid, long resourceVersion) {
    if (tombstones.contains(uid)) {
      return true;
    }
    Node node = nodes.get(uid);
    return node != null && node.meta != null && node.meta.resourceVersion() >= resourceVersion;
  }

  /** The observed object with this uid, or null. */
  public synchronized ObjectMetadata get(String uid) {
    Node node = nodes.get(uid);
    return node == null ? null : node.meta;
  }

  /** The observed object a reference names, or null (by uid, as {@link #get(String)}, with no text made). */
  public synchronized ObjectMetadata get(OwnerLink link) {
    Node node = nodes.get(link);
    return node == null ? null : node.meta;
  }

  /** The observed object with this reference's uid, or null (no text made of the uid). */
  public synchronized ObjectMetadata get(ObjectRef ref) {
    Node node = nodes.get(ref);
    return node == null ? null : node.meta;
  }

  /** Observed objects that name this uid as owner through a valid reference. */
  public synchronized List<ObjectMetadata> dependentsOf(String uid) {
    return rules.dependents(nodes.get(uid), true);
  }

  /** {@link #dependentsOf(String)} of an object by its reference (no text made of its uid). */
  public synchronized List<ObjectMetadata> dependentsOf(ObjectRef ref) {
    return rules.dependents(nodes.get(ref), true);
  }

  /** Observed objects that name this uid as owner, whether or not the reference is valid. */
  public synchronized List<ObjectMetadata> referencing(String uid) {
    return rules.dependents(nodes.get(uid), false);
  }

  /**
   * The observed objects that name {@code used} in {@code syncgc.dev/uses} now and hold it (SPEC "In
   * use"): of a cluster-scoped object, the cluster-scoped users and those of the namespaces its
   * {@link #usersFrom settings} allow.
   */
  public List<ObjectMetadata> usersOf(ObjectMetadata used) {
    return users(used, true);
  }

  /** The users that name the cluster-scoped {@code used} from a namespace it does not allow: they hold nothing. */
  public List<ObjectMetadata> refusedUsersOf(ObjectMetadata used) {
    return users(used, false);
  }

  /**
   * How the namespaces whose users hold a cluster-scoped object are worked out: its settings in force
   * (the operator's and the CLI's, with the policies); by default its annotation alone. Asked outside
   * the graph's monitor.
   */
  public void usersFrom(Function<ObjectMetadata, UsersFrom> usersFrom) {
    this.usersFrom = usersFrom;
  }

  private List<ObjectMetadata> users(ObjectMetadata used, boolean allowed) {
    List<ObjectMetadata> users;
    synchronized (this) {
      users = usage.any() ? usage.usersOf(used, kinds, this::get) : List.of();
    }
    if (used.ref().namespace() != null || users.isEmpty()) {
      return allowed ? users : List.of();
    }
    UsersFrom from = usersFrom.apply(used);
    return users.stream().filter(u -> from.allows(u.ref()) == allowed).toList();
  }

  /** Whether any observed object names another in {@code syncgc.dev/uses}. */
  public synchronized boolean anyUses() {
    return usage.any();
  }

  /** What {@code user}'s {@code syncgc.dev/uses} names, resolved with the kinds known now. */
  public List<Use> uses(ObjectMetadata user) {
    return Use.of(user, kinds::resolve);
  }

  /** Whether any observed object names this uid as owner through a valid reference. */
  public synchronized boolean hasDependents(String uid) {
    return rules.anyFollowed(nodes.get(uid));
  }

  /** Whether {@code dependent} names {@code owner} through a valid reference; under the monitor. */
  boolean followed(ObjectMetadata dependent, Node owner) {
    return rules.followed(dependent, owner);
  }

  /** Whether Kubernetes would honour this reference of {@code dependent}. */
  public synchronized LinkValidity validity(ObjectMetadata dependent, OwnerLink link) {
    return rules.validity(dependent, link);
  }

  /** What the owner named by {@code link} is now. */
  public synchronized OwnerState ownerState(OwnerLink link) {
    if (!kinds.tracked(link)) {
      return OwnerState.PRESUMED_SOLID;
    }
    Node node = nodes.get(link);
    if (node == null || node.meta == null) {
      return OwnerState.ABSENT;
    }
    return node.meta.beingDeleted() ? OwnerState.DELETING : OwnerState.SOLID;
  }

  /**
   * Number of distinct objects below {@code uid}, direct and indirect, excluding itself; weakly
   * consistent, the monitor held for one section of the traversal at a time ({@link DependentCount}).
   */
  public int transitiveDependentCount(String uid) {
    return transitiveDependentCount(uid, () -> { });
  }

  /** @param betweenSections runs without the monitor after each section (for tests) */
  int transitiveDependentCount(String uid, Runnable betweenSections) {
    return new DependentCount(this, uid).count(betweenSections);
  }

  Node node(String uid) { // the caller holds the monitor
    return nodes.get(uid);
  }

  /** Every observed object, copied: for the rare whole-graph passes (a policy changed). */
  public synchronized List<ObjectMetadata> snapshot() {
    List<ObjectMetadata> all = new ArrayList<>(observed);
    for (Node node : nodes.all()) {
      if (node.meta != null) {
        all.add(node.meta);
      }
    }
    return all;
  }

  /** Observed objects. */
  public synchronized int size() {
    return observed;
  }

  /** Owner references of the observed objects (each owner uid counted once per dependent). */
  public synchronized int ownerReferences() {
    return ownerReferences;
  }

  /** Referenced owners not observed (exported as {@code syncgc_graph_unseen_owners}). */
  public synchronized int virtualSize() {
    return nodes.size() - observed;
  }
}
