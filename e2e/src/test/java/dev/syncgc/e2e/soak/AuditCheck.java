package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Safety invariants 1 to 3 from the API server's own record of what syncgc's identity sent, every
 * answer included:
 * <ul>
 *   <li>every DELETE carries the object's uid as precondition, refused ones (4xx) too; only a
 *       request refused before its body was read (API Priority and Fairness' 429), or one whose body
 *       never arrived (its sender killed between headers and body: answered 500, not executed), has
 *       none to show; one executed without a body is a violation;
 *   <li>a DELETE names an object the model lets syncgc delete ({@link Oracle.Deletes}): one a
 *       synchronous cascade of the round deletes, or an Orphan owner handed to the API server's
 *       orphaning ({@code propagationPolicy: Orphan}); never the owner the user deleted, nothing the
 *       built-in collector or an Orphan owner keeps;
 *   <li>no object is deleted twice: a second DELETE answered 2xx went to an object already being
 *       deleted (the Orphan hand-over is syncgc's first and only DELETE of that owner). One exception:
 *       in a round whose fault changes the leader, a new leader, which cannot know that its
 *       predecessor handed the owner over (kube-controller-manager removes the orphan finalizer once it
 *       has orphaned), hands it over again, planned from a later view (a greater resourceVersion
 *       precondition): what a second {@code kubectl delete --cascade=orphan} does, orphaning again
 *       only what references the owner since. Counted, not a violation;
 *   <li>no PATCH or UPDATE can drop another controller's finalizer or a concurrent change of owner
 *       references: a JSON patch removes only an entry it first tests to be syncgc's own finalizer
 *       (or the owner reference it tests), a merge patch or UPDATE that sets the finalizers or owner
 *       references carries the resourceVersion it was computed from, and its list keeps every other
 *       finalizer the object had at that version (etcd's record of it).
 * </ul>
 * Every change is to an object of the round.
 */
final class AuditCheck {
  /** The kinds the soak creates, as audit keys start: syncgc's Events, Leases and policies are not judged. */
  private static final List<String> JUDGED = EtcdDeletions.KINDS;
  private static final Pattern FINALIZER_ENTRY = Pattern.compile("/metadata/finalizers/\\d+");
  private static final Pattern OWNER_ENTRY = Pattern.compile("/metadata/ownerReferences/\\d+");

  /**
   * What syncgc may DELETE this round, by etcd key: each object of a cascade (to its uid), and each
   * Orphan owner it hands over.
   */
  record Allowed(Map<String, String> cascade, Map<String, String> handOver) {}

  /** One round's figures. */
  record Counts(int deletes, int refused, int unread, int neverArrived, int handOvers, int patches,
      int rejected429, int handOversRepeated) {
    Counts plus(Counts o) {
      return new Counts(deletes + o.deletes, refused + o.refused, unread + o.unread, neverArrived + o.neverArrived,
          handOvers + o.handOvers, patches + o.patches, rejected429 + o.rejected429,
          handOversRepeated + o.handOversRepeated);
    }
  }

  /** What a round's check found: what does not hold, and its figures. */
  record Result(List<String> violations, Counts counts) {}

  /** Only the soak's own objects are judged (their namespace or name starts with it): in the full
   * suite the operators may still finish an earlier test's deletion, which no model here covers. */
  private final String prefix;
  private Counts total = new Counts(0, 0, 0, 0, 0, 0, 0, 0);

  AuditCheck(String prefix) {
    this.prefix = prefix;
  }

  /**
   * @param requests the identity's requests during the round
   * @param allowed what syncgc may delete this round
   * @param round key to uid of every object of the round
   * @param finalizersAt the finalizers an object had at a revision (etcd), or null if not known
   */
  Result check(List<AuditLog.Request> requests, Allowed allowed, Map<String, String> round,
      FinalizersAt finalizersAt) {
    return check(requests, allowed, round, finalizersAt, false);
  }

  /** @param leaderChanged whether the round's fault hands leadership to another replica */
  Result check(List<AuditLog.Request> requests, Allowed allowed, Map<String, String> round,
      FinalizersAt finalizersAt, boolean leaderChanged) {
    List<String> out = new ArrayList<>();
    Map<String, Integer> deleted = new HashMap<>();
    Map<String, Long> handedOverAt = new HashMap<>(); // the resourceVersion the first hand-over was planned from
    int deletes = 0;
    int refused = 0;
    int unread = 0;
    int neverArrived = 0;
    int handOvers = 0;
    int handOversRepeated = 0;
    int patches = 0;
    int rejected = 0;
    for (AuditLog.Request r : requests) {
      if (r.code() == 429) {
        rejected++;
      }
      if (JUDGED.stream().noneMatch(r.key()::startsWith) || !r.key().contains("/" + prefix)) {
        continue;
      }
      String uid = round.get(r.key());
      if (r.verb().startsWith("delete")) {
        deletes++;
        if (!r.succeeded()) {
          refused++;
        }
        if (!r.verb().equals("delete")) {
          out.add("syncgc sent " + r.verb() + " to " + r.key() + ": " + r.line());
          continue;
        }
        if (!r.hasBody()) {
          if (r.code() == 429) {
            unread++; // refused before the API server read the body: nothing to judge
          } else if (r.bodyNeverArrived()) {
            neverArrived++; // its sender gone between headers and body: the API server executed nothing
          } else {
            out.add("syncgc sent a DELETE without DeleteOptions (no uid precondition) to " + r.key() + ", answered "
                + r.code() + ": " + r.line());
          }
        } else if (r.preconditionUid() == null || !r.preconditionUid().equals(uid)) {
          out.add("syncgc sent a DELETE to " + r.key() + " with uid precondition " + r.preconditionUid() + ", not "
              + (uid == null ? "that of an object of the round" : uid) + " (answered " + r.code() + "): " + r.line());
        }
        boolean handOver = allowed.handOver().containsKey(r.key());
        if (handOver) {
          if (r.hasBody() && !"Orphan".equals(r.propagationPolicy())) {
            out.add("syncgc deleted the Orphan owner " + r.key() + " with propagationPolicy " + r.propagationPolicy()
                + ", not handing it to the API server's orphaning: " + r.line());
          }
        } else if (!allowed.cascade().containsKey(r.key())) {
          out.add("syncgc sent a DELETE (answered " + r.code() + ") to " + r.key() + ", which no synchronous deletion"
              + " of the round deletes (the owner the user deleted, or one the model keeps): " + r.line());
        }
        if (r.succeeded()) {
          handOvers += handOver ? 1 : 0;
          long rv = r.body().path("preconditions").path("resourceVersion").asLong(-1);
          Long first = handOver ? handedOverAt.putIfAbsent(r.key(), rv) : null;
          if (first != null && leaderChanged && rv > first) {
            handOversRepeated++; // a new leader's, planned from a later view
            continue;
          }
          if (deleted.merge(r.key(), 1, Integer::sum) == 2) {
            out.add("syncgc deleted " + r.key() + " twice (a second DELETE answered " + r.code() + " to an object"
                + " already being deleted" + (handOver ? ": the Orphan hand-over is sent once" : "") + "): " + r.line());
          }
        }
      } else if (Set.of("patch", "update").contains(r.verb())) {
        patches++;
        if (uid == null) {
          out.add("syncgc changed " + r.key() + ", which is not an object of the round: " + r.line());
        }
        if (r.hasBody()) {
          out.addAll(keepsOthers(r, finalizersAt));
        }
      }
    }
    Counts counts = new Counts(deletes, refused, unread, neverArrived, handOvers, patches, rejected,
        handOversRepeated);
    total = total.plus(counts);
    return new Result(out, counts);
  }

  /** The finalizers the object under a key had at a revision, or null if not known. */
  interface FinalizersAt {
    List<String> at(String key, long revision);
  }

  /** Invariant 3 on one PATCH or UPDATE body. */
  static List<String> keepsOthers(AuditLog.Request r, FinalizersAt finalizersAt) {
    List<String> out = new ArrayList<>();
    JsonNode body = r.body();
    if (body.isArray()) {
      Map<String, JsonNode> tested = new HashMap<>();
      for (JsonNode op : body) {
        String path = op.path("path").asText();
        String verb = op.path("op").asText();
        if (verb.equals("test")) {
          tested.put(path, op.path("value"));
          continue;
        }
        if (path.startsWith("/metadata/finalizers") && !verb.equals("add")) {
          boolean own = verb.equals("remove") && FINALIZER_ENTRY.matcher(path).matches()
              && tested.containsKey(path) && FINALIZER.equals(tested.get(path).asText());
          if (!own) {
            out.add("syncgc's JSON patch " + verb + "s " + path + " of " + r.key() + " without testing it is its own"
                + " finalizer (it could drop another controller's): " + r.line());
          }
        }
        if (path.startsWith("/metadata/ownerReferences") && !verb.equals("add")) {
          boolean testedEntry = verb.equals("remove") && OWNER_ENTRY.matcher(path).matches()
              && (tested.containsKey(path + "/uid") || tested.containsKey(path));
          if (!testedEntry) {
            out.add("syncgc's JSON patch " + verb + "s " + path + " of " + r.key() + " without testing the reference"
                + " (a concurrent change could be lost): " + r.line());
          }
        }
      }
      return out;
    }
    JsonNode meta = body.path("metadata");
    boolean update = r.verb().equals("update");
    boolean finalizers = meta.has("finalizers");
    if (!update && !finalizers && !meta.has("ownerReferences")) {
      return out;
    }
    String version = meta.path("resourceVersion").asText("");
    if (version.isEmpty()) {
      out.add("syncgc's " + (update ? "UPDATE" : "merge patch") + " of " + r.key() + " sets "
          + (finalizers ? "the finalizers" : "the owner references") + " without the resourceVersion it was computed"
          + " from (a concurrent change could be lost): " + r.line());
      return out;
    }
    if (finalizers && meta.path("finalizers").isNull()) {
      out.add("syncgc's patch of " + r.key() + " removes every finalizer: " + r.line());
      return out;
    }
    if (finalizers && r.succeeded()) {
      List<String> before = finalizersAt.at(r.key(), Long.parseLong(version));
      Set<String> after = new HashSet<>();
      meta.path("finalizers").forEach(f -> after.add(f.asText()));
      if (before != null) {
        for (String f : before) {
          if (!f.equals(FINALIZER) && !after.contains(f)) {
            out.add("syncgc's " + (update ? "UPDATE" : "merge patch") + " of " + r.key() + " dropped the finalizer " + f
                + " it had at resourceVersion " + version + ": " + r.line());
          }
        }
      }
    }
    return out;
  }

  Map<String, Integer> counts() {
    Map<String, Integer> out = new LinkedHashMap<>();
    out.put("DELETE", total.deletes());
    out.put("DELETE refused", total.refused());
    out.put("DELETE refused before its body was read", total.unread());
    out.put("DELETE whose body never arrived (not executed)", total.neverArrived());
    out.put("Orphan hand-overs", total.handOvers());
    out.put("Orphan hand-overs sent again by a new leader (planned from a later view)", total.handOversRepeated());
    out.put("PATCH/UPDATE", total.patches());
    out.put("429 in the audit log", total.rejected429());
    return out;
  }
}
