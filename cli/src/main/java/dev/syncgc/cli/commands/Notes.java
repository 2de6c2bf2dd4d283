package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.Output;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.policy.LoadedPolicies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Small pieces the commands share. */
final class Notes {
  private Notes() {}

  /**
   * On stderr: kinds that could not be listed (one line), policies that could not be read or are
   * invalid, so that nothing missing is silent.
   */
  static void notChecked(Output out, Snapshot s) {
    if (!s.unlisted.isEmpty()) {
      out.warn(notCheckedLine(s.unlisted));
    }
    policyLines(s.loadedPolicies).forEach(out::warn);
  }

  /** For scripts: {@code plural.group (why)} of each kind not listed, and what is wrong with the policies. */
  static List<String> notCheckedModel(Snapshot s) {
    List<String> out = new ArrayList<>(s.unlisted.stream().map(Snapshot.Unlisted::toString).toList());
    out.addAll(policyLines(s.loadedPolicies));
    return out;
  }

  /** The policies as the operator reads them: one rule ({@code LoadedPolicies}), said, never silently dropped. */
  static List<String> policyLines(LoadedPolicies policies) {
    List<String> lines = new ArrayList<>();
    if (policies.unreadable() != null) {
      lines.add("warning: " + policies.unreadable() + ", so settings are shown from annotations alone (the"
          + " operator reads the policies and may decide otherwise); ask for list rights on"
          + " garbagecollectionpolicies.syncgc.dev");
    }
    policies.invalid().forEach((name, why) -> lines.add("warning: GarbageCollectionPolicy " + name
        + " is invalid and not used (" + why + ")"));
    return lines;
  }

  /**
   * The kinds not listed in one line however many (a namespace-scoped user may list no
   * cluster-scoped kind at all), grouped by why and scope, with the fix.
   */
  static String notCheckedLine(List<Snapshot.Unlisted> unlisted) {
    Map<String, List<String>> byWhy = new TreeMap<>();
    for (Snapshot.Unlisted u : unlisted) {
      String why = u.code() == 403 ? "forbidden" : u.code() < 0 ? "no answer" : "failed (" + u.code() + ")";
      String name = u.kind().plural() + (u.kind().group().isEmpty() ? "" : "." + u.kind().group());
      byWhy.computeIfAbsent(why + (u.kind().namespaced() ? "" : ", cluster-scoped"), k -> new ArrayList<>()).add(name);
    }
    List<String> parts = new ArrayList<>();
    byWhy.forEach((why, names) -> parts.add(why + ": " + String.join(", ", names)));
    return "warning: could not list " + unlisted.size() + (unlisted.size() == 1 ? " kind" : " kinds")
        + ", so their objects are not shown and an owner among them counts as there (" + String.join("; ", parts)
        + "); ask for list rights on them, or use another --context";
  }

  static Map<String, Object> ref(ObjectMetadata o) {
    return ref(o.ref());
  }

  static Map<String, Object> ref(ObjectRef r) {
    return dev.syncgc.cli.render.UsageView.ref(r);
  }

  static String name(ObjectRef r) {
    return r.kind() + "/" + (r.namespace() == null ? "" : r.namespace() + "/") + r.name();
  }
}
