package dev.syncgc.e2e.soak;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Safety invariant 1 from the API server's own record: every DELETE syncgc's identity sent that
 * succeeded names an object a synchronous deletion of this round must delete, with that object's
 * uid as precondition; every change it made is to an object of the round.
 */
final class AuditCheck {
  /** The kinds the soak creates, as audit keys start: syncgc's Events, Leases and policies are not judged. */
  private static final List<String> JUDGED = List.of("/registry/test.syncgc.dev/widgets/",
      "/registry/test.syncgc.dev/clusterwidgets/", "/registry/configmaps/", "/registry/pods/");

  /** Only the soak's own objects are judged (their namespace or name starts with it): in the full
   * suite the operators may still finish an earlier test's deletion, which no model here covers. */
  private final String prefix;
  private int deletes;
  private int patches;
  private int rejected;

  /**
   * @param requests the identity's requests during the round
   * @param mayDelete key to uid of every object syncgc may delete this round
   * @param round key to uid of every object of the round
   */
  AuditCheck(String prefix) {
    this.prefix = prefix;
  }

  List<String> check(List<AuditLog.Request> requests, Map<String, String> mayDelete, Map<String, String> round) {
    List<String> out = new ArrayList<>();
    for (AuditLog.Request r : requests) {
      if (r.code() == 429) {
        rejected++;
      }
      if (!r.succeeded() || JUDGED.stream().noneMatch(r.key()::startsWith) || !r.key().contains("/" + prefix)) {
        continue;
      }
      if (r.verb().startsWith("delete")) {
        deletes++;
        if (!mayDelete.containsKey(r.key())) {
          out.add("syncgc deleted " + r.key() + ", which no synchronous deletion of the round covers: " + r.line());
        } else if (!mayDelete.get(r.key()).equals(r.preconditionUid())) {
          out.add("syncgc deleted " + r.key() + " without the uid precondition " + mayDelete.get(r.key()) + ": "
              + r.line());
        }
      } else if (Set.of("patch", "update").contains(r.verb())) {
        patches++;
        if (!round.containsKey(r.key())) {
          out.add("syncgc changed " + r.key() + ", which is not an object of the round: " + r.line());
        }
      }
    }
    return out;
  }

  Map<String, Integer> counts() {
    Map<String, Integer> out = new HashMap<>();
    out.put("DELETE", deletes);
    out.put("PATCH/UPDATE", patches);
    out.put("429 in the audit log", rejected);
    return out;
  }
}
