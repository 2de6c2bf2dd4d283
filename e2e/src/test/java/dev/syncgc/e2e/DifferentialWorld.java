package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.AdmissionPolicies;
import dev.syncgc.e2e.support.SpecNames;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One world of {@link CoOwnerDifferentialIT}, built twice: o0 is the root; o(i) is owned by one or two of
 * o0..o(i-1) and perhaps by co-owners c(k) outside the tree; then at most one {@link Extra}, objects
 * named by a letter of their own. Every reference blocks its owner's deletion.
 *
 * @param owners each object's owners by name, in creation order (a name made later is added by a patch
 *     once it exists: a ring); {@link #UNKNOWN} and {@link #ELSEWHERE} name owners outside the world
 */
record DifferentialWorld(List<Co> coOwners, Map<String, List<String>> owners, Extra extra) {
  static final String HOLD = "example.com/hold";
  /** On a dependent: the uids of owners whose reference the pinning policy keeps it from losing. */
  static final String PINNED = "e2e.syncgc.dev/pinned-owners";
  /** An owner of a kind no API server serves. */
  static final String UNKNOWN = "unknown";
  /** An owner in another namespace (a namespaced owner may not be). */
  static final String ELSEWHERE = "elsewhere";
  /** The root's deadline on syncgc's side in a world with a refused DELETE. */
  static final String REFUSED_TIMEOUT = "8s";

  /**
   * ALIVE, HELD (deleted, another controller's finalizer on it), ORPHANING (deleted with
   * {@code --cascade=orphan}, held: its {@code orphan} finalizer stays for the whole deletion, since
   * the pinning policy refuses the built-in collector's removal of the references to it), GHOST (never
   * existed), CASCADING (a second root deleted at the same moment as o0: two cascades competing).
   */
  enum CoOwner { ALIVE, HELD, ORPHANING, GHOST, CASCADING }

  /** A co-owner's state and scope (cluster-scoped: a ClusterWidget named after its world's namespace). */
  record Co(CoOwner state, boolean cluster) {
    @Override
    public String toString() {
      return (cluster ? "cluster " : "") + state;
    }
  }

  /**
   * What a world adds: RING (r1 owns r2 owns r1, below the root), REFUSED (p1 below o0, whose DELETE a
   * ValidatingAdmissionPolicy refuses), UNKNOWN_KIND (n1 also owned by an owner of an unknown kind),
   * CLUSTER_DEPENDENT (k1, a ClusterWidget owned by the root), OTHER_NAMESPACE (w1 also owned by
   * a Widget of another namespace), USER (u1, with its dependent u2, uses u3: SPEC "In use").
   */
  enum Extra { NONE, RING, REFUSED, UNKNOWN_KIND, CLUSTER_DEPENDENT, OTHER_NAMESPACE, USER;

    /** The extra a seed draws (a kept seed draws none: its world stays as found). */
    static Extra of(long seed) {
      return values()[Math.floorMod(seed, values().length)];
    }

    /** A new random seed that draws this extra. */
    long seed(Random r) {
      return (r.nextLong() >>> 8) / values().length * values().length + ordinal();
    }
  }

  /** @param kept a seed kept for what it found: its world as it was then, without c3 and extras */
  static DifferentialWorld random(long seed, boolean kept) {
    Random r = new Random(seed);
    List<Co> coOwners = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      // the draws of the kept seeds first: their co-owners as they were found (namespaced, never a ghost)
      coOwners.add(new Co(CoOwner.values()[r.nextInt(3)], false));
    }
    int n = 3 + r.nextInt(6);
    Map<String, List<String>> owners = new LinkedHashMap<>();
    owners.put("o0", new ArrayList<>());
    for (int i = 1; i < n; i++) {
      List<String> of = new ArrayList<>(List.of("o" + r.nextInt(i)));
      if (i > 1 && r.nextInt(3) == 0) {
        String second = "o" + r.nextInt(i);
        if (!of.contains(second)) {
          of.add(second); // a diamond
        }
      }
      if (r.nextInt(2) == 0) {
        of.add("c" + r.nextInt(coOwners.size()));
      }
      owners.put("o" + i, of);
    }
    if (kept) {
      return new DifferentialWorld(coOwners, owners, Extra.NONE);
    }
    // then one more co-owner, perhaps cluster-scoped or a ghost, drawn after what the kept seeds drew
    coOwners.add(new Co(CoOwner.values()[r.nextInt(CoOwner.values().length)], r.nextBoolean()));
    for (Map.Entry<String, List<String>> e : owners.entrySet()) {
      if (!e.getValue().isEmpty() && r.nextInt(3) == 0) {
        e.getValue().add("c3");
      }
    }
    Extra extra = Extra.of(seed);
    String below = "o0"; // where the built-in side deletes it: a co-owner keeps most objects further down
    switch (extra) {
      case NONE -> { }
      case RING -> {
        owners.put("r1", new ArrayList<>(List.of(below, "r2")));
        owners.put("r2", new ArrayList<>(List.of("r1")));
        if (r.nextBoolean()) {
          owners.get("r2").add("c" + r.nextInt(coOwners.size()));
        }
      }
      case REFUSED -> owners.put("p1", new ArrayList<>(List.of("o0")));
      case UNKNOWN_KIND -> owners.put("n1", new ArrayList<>(List.of(below, UNKNOWN)));
      case CLUSTER_DEPENDENT -> owners.put("k1", new ArrayList<>(List.of(below)));
      case OTHER_NAMESPACE -> owners.put("w1", new ArrayList<>(List.of(below, ELSEWHERE)));
      case USER -> { // below o0: all three go on the built-in side, so the use is judged
        owners.put("u1", new ArrayList<>(List.of("o0")));
        owners.put("u2", new ArrayList<>(List.of("u1")));
        owners.put("u3", new ArrayList<>(List.of("o0")));
      }
    }
    return new DifferentialWorld(coOwners, owners, extra);
  }

  /** The use the USER extra adds (user, used), or none. */
  List<List<String>> fixedUses() {
    return extra == Extra.USER ? List.of(List.of("u1", "u3")) : List.of();
  }

  /** Whether the built-in collector's foreground deletion of the root is expected never to finish. */
  boolean sticks() {
    return extra == Extra.REFUSED || extra == Extra.UNKNOWN_KIND || extra == Extra.CLUSTER_DEPENDENT;
  }

  /** Objects and co-owners, the number compared on each side. */
  int objects() {
    return owners.size() + coOwners.size();
  }

  /** The name an object has in the store (a ClusterWidget's carries its namespace). */
  static String stored(String ns, String name, boolean cluster) {
    return cluster ? ns + "-" + name : name;
  }

  /**
   * Co-owners first, then the root (opted in for syncgc; with a deadline in a REFUSED world), then
   * the objects in order, then the co-owners put in their state.
   *
   * @param elsewhere the owner in another namespace that OTHER_NAMESPACE names
   */
  void build(KubernetesClient client, String ns, boolean synchronous, GenericKubernetesResource elsewhere) {
    Map<String, GenericKubernetesResource> made = new TreeMap<>();
    for (int k = 0; k < coOwners.size(); k++) {
      made.put("c" + k, coOwner(client, ns, k, synchronous));
    }
    Widgets.Builder root = Widgets.create(client, ns, "o0");
    if (synchronous && extra == Extra.REFUSED) {
      root.annotate(SpecNames.TIMEOUT, REFUSED_TIMEOUT);
    }
    made.put("o0", synchronous ? root.synchronous().applyAndAwaitFinalizer() : root.apply());
    List<List<String>> later = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : owners.entrySet()) {
      String name = e.getKey();
      if (name.equals("o0")) {
        continue;
      }
      Widgets.Builder b = name.equals("k1") ? Widgets.createCluster(client, stored(ns, name, true))
          : Widgets.create(client, ns, name);
      List<String> pinned = new ArrayList<>();
      for (String owner : e.getValue()) {
        if (owner.equals(UNKNOWN)) {
          b.ownedBy(new OwnerReferenceBuilder().withApiVersion("nothing.example.com/v1").withKind("Nothing")
              .withName(UNKNOWN).withUid(UUID.randomUUID().toString()).withBlockOwnerDeletion(true).build());
        } else if (owner.equals(ELSEWHERE)) {
          b.ownedBy(Widgets.ownerReference(elsewhere, true, false));
        } else if (made.containsKey(owner)) {
          b.ownedBy(made.get(owner), true, false);
          if (owner.startsWith("c") && coOwners.get(Integer.parseInt(owner.substring(1))).state() == CoOwner.ORPHANING) {
            pinned.add(made.get(owner).getMetadata().getUid());
          }
        } else {
          later.add(List.of(name, owner));
        }
      }
      if (name.equals("p1")) {
        b.label(AdmissionPolicies.PROTECTED, "true");
      }
      if (!pinned.isEmpty()) {
        b.annotate(PINNED, String.join(",", pinned));
      }
      made.put(name, b.apply());
    }
    for (List<String> l : later) { // a ring's closing reference
      OwnerReference ref = Widgets.ownerReference(made.get(l.get(1)), true, false);
      Widgets.widget(client, ns, l.get(0)).patch(PatchContext.of(PatchType.JSON),
          "[{\"op\":\"add\",\"path\":\"/metadata/ownerReferences/-\",\"value\":" + Serialization.asJson(ref) + "}]");
    }
    if (extra == Extra.OTHER_NAMESPACE) {
      // the built-in collector counts it absent and drops it at once: waited for, so that syncgc's side
      // never starts before (syncgc keeps an object naming it; the collector would delete w1 after the root)
      await("the built-in collector drops the reference to another namespace").atMost(Duration.ofSeconds(30))
          .until(() -> Widgets.widget(client, ns, "w1").get().getMetadata().getOwnerReferences().size() == 1);
    }
    for (int k = 0; k < coOwners.size(); k++) {
      Resource<GenericKubernetesResource> co = coOwnerResource(client, ns, k);
      switch (coOwners.get(k).state()) {
        case ALIVE, GHOST, CASCADING -> { }
        case HELD -> co.withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        case ORPHANING -> co.withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
      }
      if (coOwners.get(k).state() == CoOwner.HELD || coOwners.get(k).state() == CoOwner.ORPHANING) {
        String name = "c" + k; // orphaning what names it: the orphan finalizer stays, pinned
        boolean orphaning = coOwners.get(k).state() == CoOwner.ORPHANING
            && owners.values().stream().anyMatch(of -> of.contains(name));
        await("c" + k + " marked as deleted").atMost(Duration.ofSeconds(10)).until(() -> {
          var m = co.get().getMetadata();
          return m.getDeletionTimestamp() != null && m.getFinalizers().contains("orphan") == orphaning;
        });
      }
    }
  }

  /** Deletes o0 and the second roots: foreground on the built-in side, plain (Synchronous) on syncgc's. */
  void deleteRoots(KubernetesClient client, String ns, boolean synchronous) {
    List<Resource<GenericKubernetesResource>> roots = new ArrayList<>(List.of(Widgets.widget(client, ns, "o0")));
    roots.addAll(cascading(client, ns));
    for (Resource<GenericKubernetesResource> root : roots) {
      (synchronous ? root : root.withPropagationPolicy(DeletionPropagation.FOREGROUND)).delete();
    }
  }

  /** The co-owners deleted with the root. */
  List<Resource<GenericKubernetesResource>> cascading(KubernetesClient client, String ns) {
    List<Resource<GenericKubernetesResource>> out = new ArrayList<>();
    for (int k = 0; k < coOwners.size(); k++) {
      if (coOwners.get(k).state() == CoOwner.CASCADING) {
        out.add(coOwnerResource(client, ns, k));
      }
    }
    return out;
  }

  /** Creates co-owner k (a ghost: only the object a reference to it is made from, never created). */
  private GenericKubernetesResource coOwner(KubernetesClient client, String ns, int k, boolean synchronous) {
    Co co = coOwners.get(k);
    Widgets.Builder b = co.cluster() ? Widgets.createCluster(client, stored(ns, "c" + k, true))
        : Widgets.create(client, ns, "c" + k);
    return switch (co.state()) {
      case GHOST -> {
        GenericKubernetesResource ghost = b.build();
        ghost.getMetadata().setUid(UUID.randomUUID().toString());
        yield ghost;
      }
      case CASCADING -> synchronous ? b.synchronous().applyAndAwaitFinalizer() : b.apply();
      default -> b.finalizer(HOLD).apply();
    };
  }

  private Resource<GenericKubernetesResource> coOwnerResource(KubernetesClient client, String ns, int k) {
    return coOwners.get(k).cluster() ? Widgets.clusterWidget(client, stored(ns, "c" + k, true))
        : Widgets.widget(client, ns, "c" + k);
  }

  @Override
  public String toString() {
    return "coOwners=" + coOwners + " owners=" + owners + (extra == Extra.NONE ? "" : " extra=" + extra);
  }
}
