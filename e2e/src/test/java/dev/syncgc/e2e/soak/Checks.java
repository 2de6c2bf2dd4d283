package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;

import dev.syncgc.e2e.soak.Oracle.Before;
import dev.syncgc.e2e.soak.Oracle.Expectation;
import dev.syncgc.e2e.soak.Oracle.NotWhileOwned;
import dev.syncgc.e2e.soak.Oracle.Unreferenced;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reality against the model: deletions from etcd's record, survivors from the API server. Each
 * method returns what does not hold (empty: all is well), in words that name the object, what was
 * expected and what was found, with etcd revisions for order.
 */
final class Checks {
  private final ObjectFactory objects;
  private final EtcdDeletions etcd;

  Checks(ObjectFactory objects, EtcdDeletions etcd) {
    this.objects = objects;
    this.etcd = etcd;
  }

  /**
   * What is not (yet) as the model says: an object to delete still there, or a survivor gone,
   * marked deleted, holding syncgc's finalizer, or with other owners than expected.
   */
  List<String> unmet(Expectation e) {
    List<String> out = new ArrayList<>();
    for (SoakObject d : e.deleted()) {
      if (etcd.deletedAt(d.etcdKey()) == null) {
        out.add(d + " must be deleted; now " + describe(objects.current(d)));
      }
    }
    for (SoakObject h : e.held()) {
      Long revision = etcd.deletedAt(h.etcdKey());
      GenericKubernetesResource r = revision == null ? objects.current(h) : null;
      if (revision != null || r == null || r.getMetadata().getDeletionTimestamp() == null) {
        out.add(h + " must be held in use (marked deleted, not gone) while a user outside names it; "
            + (revision != null ? "deleted at etcd revision " + revision : "now " + describe(r)));
      }
    }
    for (Map.Entry<SoakObject, Set<SoakObject>> s : e.survivorOwners().entrySet()) {
      SoakObject o = s.getKey();
      Long revision = etcd.deletedAt(o.etcdKey());
      if (revision != null) {
        out.add(o + " must survive but was deleted at etcd revision " + revision);
        continue;
      }
      GenericKubernetesResource r = objects.current(o);
      if (r == null) {
        out.add(o + " must survive but cannot be read");
        continue;
      }
      if (r.getMetadata().getDeletionTimestamp() != null) {
        out.add(o + " must survive but is marked deleted: " + describe(r));
      }
      if (r.getMetadata().getFinalizers().contains(FINALIZER)) {
        out.add(o + " survives but still holds syncgc's finalizer: " + describe(r));
      }
      Set<String> expected = s.getValue().stream().map(p -> p.uid).collect(Collectors.toSet());
      o.unresolvable.forEach(u -> expected.add(u.uid())); // nobody can remove these (nor may)
      Set<String> actual = r.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid)
          .collect(Collectors.toSet());
      if (!expected.equals(actual)) {
        out.add(o + " must keep exactly the owners " + s.getValue() + " but has " + owners(r));
      }
    }
    return out;
  }

  /**
   * What the order checks read from etcd's record, by key: revisions are comparable across kinds.
   * Null where the record has nothing.
   */
  interface History {
    /** The revision of the object's DELETE from the store. */
    Long deletedAt(String key);

    /** The revision at which its deletion began: its first version with a deletionTimestamp, else its DELETE. */
    Long markedAt(String key);

    /** The revision of its first version without a reference to {@code ownerUid} after one with it. */
    Long unreferencedAt(String key, String ownerUid);
  }

  /**
   * Each {@code first} gone at a lower etcd revision than its {@code then}; each orphaned dependent
   * without the reference before its owner is gone; no dependent marked deleted before its owner.
   */
  List<String> order(Expectation e) {
    return judge(e, etcd).violations();
  }

  /**
   * What the order checks found, and how many constraints of each sort they could judge (both ends
   * in etcd's record): a check that never has its data would pass by accident. {@code uses}: the
   * gone-before-gone pairs that are a user before what it uses ({@link Oracle#USERS_FIRST}, counted
   * in {@code before} too), {@code usesViolated} how many of them did not hold.
   */
  record Judged(List<String> violations, int before, int unreferenced, int notWhileOwned, int uses,
      int usesViolated, int inUse, int inUseViolated) {
    static final Judged NONE = new Judged(List.of(), 0, 0, 0, 0, 0, 0, 0);

    Judged plus(Judged o) {
      List<String> all = new ArrayList<>(violations);
      all.addAll(o.violations);
      return new Judged(all, before + o.before, unreferenced + o.unreferenced, notWhileOwned + o.notWhileOwned,
          uses + o.uses, usesViolated + o.usesViolated, inUse + o.inUse, inUseViolated + o.inUseViolated);
    }

    /** The counts alone (the violations are reported where they were found). */
    Judged counts() {
      return new Judged(List.of(), before, unreferenced, notWhileOwned, uses, usesViolated, inUse, inUseViolated);
    }

    /**
     * The usage pairs judged: a user gone before what it uses, or what it uses held (marked deleted,
     * not gone) while it still existed, in a cascade and beyond; what {@link SoakReport#USAGE_FLOOR_PER_ROUND}
     * counts.
     */
    int usagePairs() {
      return uses + inUse;
    }
  }

  Judged judge(Expectation e) {
    return judge(e, etcd);
  }

  /** {@link #order(Expectation)} against this record. */
  static List<String> order(Expectation e, History h) {
    return judge(e, h).violations();
  }

  static Judged judge(Expectation e, History h) {
    List<String> out = new ArrayList<>();
    int before = 0;
    int unreferenced = 0;
    int notWhileOwned = 0;
    int uses = 0;
    int usesViolated = 0;
    for (Before b : e.order()) {
      Long first = h.deletedAt(b.first().etcdKey());
      Long then = h.deletedAt(b.then().etcdKey());
      if (first != null && then != null) {
        before++;
        boolean use = b.why().equals(Oracle.USERS_FIRST);
        uses += use ? 1 : 0;
        if (first >= then) {
          usesViolated += use ? 1 : 0;
          out.add(b.first() + " (etcd revision " + first + ") must be gone before " + b.then() + " (revision "
              + then + "): " + b.why());
        }
      }
    }
    for (Unreferenced u : e.unreferenced()) {
      Long gone = h.deletedAt(u.owner().etcdKey());
      if (gone == null || u.owner().uid == null) {
        continue;
      }
      unreferenced++;
      Long dropped = h.unreferencedAt(u.dependent().etcdKey(), u.owner().uid);
      if (dropped == null || dropped >= gone) {
        out.add(u.owner() + " was gone at etcd revision " + gone + " while " + u.dependent() + " still named it ("
            + (dropped == null ? "no version without the reference before" : "reference removed at revision " + dropped)
            + "): " + u.why());
      }
    }
    for (NotWhileOwned n : e.notWhileOwned()) {
      Long dependent = h.markedAt(n.dependent().etcdKey());
      Long owner = h.markedAt(n.owner().etcdKey());
      if (dependent != null) {
        notWhileOwned += owner == null ? 0 : 1;
        if (owner == null || owner > dependent) {
          out.add(n.dependent() + " was marked deleted at etcd revision " + dependent + " while its owner " + n.owner()
              + " was alive (" + (owner == null ? "never marked" : "marked at revision " + owner) + "): " + n.why());
        }
      }
    }
    int inUse = 0;
    int inUseViolated = 0;
    for (Oracle.InUse u : e.inUse()) {
      Long used = h.deletedAt(u.used().etcdKey());
      Long user = h.deletedAt(u.user().etcdKey());
      if (used != null) {
        inUse++;
        if (user == null || user >= used) {
          inUseViolated++;
          out.add(u.used() + " was gone at etcd revision " + used + " while its user " + u.user() + " still named it ("
              + (user == null ? "never gone" : "gone at revision " + user) + "): " + u.why());
        }
      } else if (user == null && h.markedAt(u.used().etcdKey()) != null) {
        inUse++; // held: marked deleted, not gone, while its user exists
      }
    }
    return new Judged(out, before, unreferenced, notWhileOwned, uses, usesViolated, inUse, inUseViolated);
  }

  private static String describe(GenericKubernetesResource r) {
    if (r == null) {
      return "unreadable";
    }
    return (r.getMetadata().getDeletionTimestamp() == null ? "alive" : "marked deleted at "
        + r.getMetadata().getDeletionTimestamp()) + ", finalizers " + r.getMetadata().getFinalizers()
        + ", owners " + owners(r);
  }

  private static List<String> owners(GenericKubernetesResource r) {
    return r.getMetadata().getOwnerReferences().stream().map(o -> o.getKind() + "/" + o.getName()).toList();
  }
}
