package dev.syncgc.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.Kinds;
import dev.syncgc.cli.cluster.OwnerEvents;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.progress.Progress;
import dev.syncgc.cli.render.ProgressView;
import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.Names;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "delete", mixinStandardHelpOptions = true,
    description = "Delete an object as kubectl delete does, then watch it go: the dependents left of the total,"
        + " the rate, the time left and what syncgc waits for (the latest WaitingForDependents Event), until the"
        + " object is gone. Exits 0 when it went with everything, 6 when its deadline released it with dependents"
        + " left (SynchronousDeletionTimedOut).")
public final class DeleteCommand implements Callable<Integer> {
  /** At most one look (object, snapshot, Events) per this much time. */
  static final Duration POLL = Duration.ofSeconds(1);
  /** How long to wait, once the owner is gone with dependents left, for the operator's Event saying why. */
  static final Duration EVENT_GRACE = Duration.ofSeconds(5);

  /** Made at the first DELETE, not when picocli builds the command line (every start, every TAB). */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
  }

  @Mixin ClusterOptions options;

  @Parameters(arity = "1..2", paramLabel = Target.LABEL, description = "The object (e.g. widget/my-app or widget my-app).")
  List<String> target;

  @Option(names = "--cascade", defaultValue = "background", paramLabel = "background|foreground|orphan",
      description = "As kubectl: background (the plain DELETE; syncgc's setting in force decides for an object it"
          + " holds), foreground or orphan (default: ${DEFAULT-VALUE}).")
  String cascade;

  @Option(names = "--wait", defaultValue = "true", arity = "0..1", fallbackValue = "true",
      description = "Watch until the object is gone (default: ${DEFAULT-VALUE}); --wait=false returns once the"
          + " DELETE is sent.")
  boolean wait;

  /** The warning about kinds not listed last printed, so that it is printed again only when it changes. */
  private String warned;

  @Override
  public Integer call() throws InterruptedException {
    String propagation = propagation(cascade);
    String format = options.output.toLowerCase(Locale.ROOT);
    if (!format.equals("text") && !format.equals("json")) {
      throw new CliException(ExitCodes.USAGE, "unknown output format \"" + options.output + "\" for delete"
          + " (use text, or json for one JSON object per line)");
    }
    String kindAndName = Target.of(target);
    int slash = kindAndName.indexOf('/');
    if (slash <= 0 || slash == kindAndName.length() - 1) {
      throw new CliException(ExitCodes.USAGE, "expected KIND/NAME or KIND NAME (e.g. widget/my-app), got \""
          + kindAndName + "\"");
    }
    try (Cluster cluster = Cluster.connect(options)) {
      Kinds kinds = new Kinds(cluster);
      TrackedKind kind = kinds.named(kindAndName.substring(0, slash));
      String name = kindAndName.substring(slash + 1);
      String namespace = kind.namespaced() ? cluster.namespace : null;
      String where = kind.namespaced() ? " in namespace " + namespace : "";
      GenericKubernetesResource found = get(cluster, kind, namespace, name);
      if (found == null) {
        throw new CliException(ExitCodes.NOT_FOUND, kind.kind() + " " + name + " not found" + where
            + (kind.namespaced() ? " (use -n NAMESPACE)" : ""));
      }
      String uid = found.getMetadata().getUid();
      String shown = kind.kind() + "/" + (namespace == null ? "" : namespace + "/") + name;
      Map<String, Object> ref = new LinkedHashMap<>();
      ref.put("apiVersion", kind.apiVersion());
      ref.put("kind", kind.kind());
      if (namespace != null) {
        ref.put("namespace", namespace);
      }
      ref.put("name", name);
      ref.put("uid", uid);
      ProgressView view = new ProgressView(format.equals("json") ? ProgressView.Mode.JSON
          : System.console() != null ? ProgressView.Mode.TERMINAL : ProgressView.Mode.PLAIN, System.out, shown, ref);

      Progress progress = new Progress();
      long lastLook = 0;
      if (wait) { // the dependents before the DELETE: the total, should the object go before the first look
        lastLook = System.nanoTime();
        progress.add(look(cluster, kinds, kind, found, namespace, uid));
      }
      delete(cluster, kind, namespace, name, uid, propagation, where);
      view.sent(cascade.toLowerCase(Locale.ROOT));
      if (!wait) {
        return ExitCodes.OK;
      }
      boolean heldBySyncgc = found.getMetadata().getFinalizers().contains(Names.FINALIZER);
      while (true) {
        pace(lastLook);
        lastLook = System.nanoTime();
        GenericKubernetesResource now = get(cluster, kind, namespace, name);
        if (now == null || !uid.equals(now.getMetadata().getUid())) {
          break;
        }
        heldBySyncgc |= now.getMetadata().getFinalizers().contains(Names.FINALIZER);
        progress.add(look(cluster, kinds, kind, now, namespace, uid));
        view.progress(progress);
      }
      // gone: released at its deadline (the operator's Event says so), or with everything
      Optional<String> timedOut = OwnerEvents.read(cluster, namespace, uid).latest(EventReason.SynchronousDeletionTimedOut);
      long graceEnd = System.nanoTime() + EVENT_GRACE.toNanos();
      Optional<String> completed = Optional.empty();
      while (timedOut.isEmpty() && heldBySyncgc && System.nanoTime() < graceEnd) {
        // the Event is sent just after the finalizer goes; a completed deletion says so as well, and how
        // many dependents it kept (SPEC "Keep one dependent")
        OwnerEvents events = OwnerEvents.read(cluster, namespace, uid);
        completed = events.latest(EventReason.SynchronousDeletionCompleted);
        if (completed.isPresent()) {
          break;
        }
        pace(lastLook);
        lastLook = System.nanoTime();
        timedOut = OwnerEvents.read(cluster, namespace, uid).latest(EventReason.SynchronousDeletionTimedOut);
      }
      if (timedOut.isPresent()) {
        view.end(ProgressView.End.TIMED_OUT, progress, timedOut.get());
        return ExitCodes.TIMED_OUT;
      }
      progress.add(new Progress.Sample(Instant.now(), 0, null, null));
      view.end(ProgressView.End.DELETED, progress, completed.map(DeleteCommand::keptIn).orElse(null));
      return ExitCodes.OK;
    }
  }

  private static final java.util.regex.Pattern KEPT =
      java.util.regex.Pattern.compile("; (\\d+) dependents? kept \\(" + java.util.regex.Pattern.quote(Names.KEEP) + "\\)");

  /** What a SynchronousDeletionCompleted message says was kept ({@code 3 kept (syncgc.dev/keep)}), or null. */
  public static String keptIn(String completed) {
    java.util.regex.Matcher m = KEPT.matcher(completed);
    return m.find() ? m.group(1) + " kept (" + Names.KEEP + ")" : null;
  }

  /** kubectl's --cascade values; null: the plain DELETE. */
  static String propagation(String cascade) {
    return switch (cascade.toLowerCase(Locale.ROOT)) {
      case "background", "true" -> null;
      case "foreground" -> "Foreground";
      case "orphan", "false" -> "Orphan";
      default -> throw new CliException(ExitCodes.USAGE, "invalid --cascade \"" + cascade
          + "\" (use background, foreground or orphan)");
    };
  }

  /** One look: the owner's transitive dependents in a fresh snapshot, its annotation, its latest blockers. */
  private Progress.Sample look(Cluster cluster, Kinds kinds, TrackedKind kind, GenericKubernetesResource object,
      String namespace, String uid) {
    Snapshot s = Snapshot.around(cluster, kinds, kind, object);
    int left = s.graph().transitiveDependentCount(uid);
    Integer atStart = null;
    String count = s.target.annotation(Names.DEPENDENTS_AT_START);
    if (count != null) {
      try {
        atStart = Integer.valueOf(count);
      } catch (NumberFormatException e) {
        // not the operator's: the most seen stands in
      }
    }
    String blockers = s.target.beingDeleted()
        ? OwnerEvents.read(cluster, namespace, uid).latest(EventReason.WaitingForDependents).orElse(null) : null;
    String unlisted = s.unlisted.isEmpty() ? null : Notes.notCheckedLine(s.unlisted);
    if (unlisted != null && !unlisted.equals(warned)) { // once a second would bury the progress
      System.err.println(unlisted);
    }
    warned = unlisted;
    return new Progress.Sample(Instant.now(), left, atStart, blockers);
  }

  /** Sleeps until {@link #POLL} after the last look started. */
  private static void pace(long lastLook) throws InterruptedException {
    long wait = lastLook + POLL.toNanos() - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  private static GenericKubernetesResource get(Cluster cluster, TrackedKind kind, String namespace, String name) {
    var all = cluster.client.genericKubernetesResources(kind.context());
    var resource = namespace != null ? all.inNamespace(namespace).withName(name) : all.withName(name);
    return cluster.call("get " + kind.plural() + "/" + name, resource::get);
  }

  /** The DELETE, with a uid precondition (the object just read, never one created since under its name). */
  private static void delete(Cluster cluster, TrackedKind kind, String namespace, String name, String uid,
      String propagation, String where) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("apiVersion", "v1");
    body.put("kind", "DeleteOptions");
    body.put("preconditions", Map.of("uid", uid));
    if (propagation != null) {
      body.put("propagationPolicy", propagation);
    }
    String what = "delete " + kind.plural() + "/" + name + where;
    HttpClient http = cluster.client.getHttpClient();
    String master = cluster.client.getMasterUrl().toString();
    String base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    HttpResponse<String> response;
    try {
      response = http.sendAsync(http.newHttpRequestBuilder().uri(base + kind.path(namespace, name))
          .method("DELETE", "application/json", Json.MAPPER.writeValueAsString(body)).build(), String.class)
          .get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.ERROR, what + ": interrupted");
    } catch (ExecutionException | TimeoutException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw cluster.failure(what, new KubernetesClientException("no answer", e));
    }
    int code = response.code();
    if (code >= 200 && code < 300) {
      return;
    }
    if (code == 409) {
      throw new CliException(ExitCodes.NOT_FOUND, what + ": it is gone (an object created since has its name)");
    }
    if (code == 403 || code == 404 || code == 401) {
      Status status;
      try {
        status = Serialization.unmarshal(response.body(), Status.class);
      } catch (RuntimeException e) {
        status = new StatusBuilder().withCode(code).withMessage(response.body()).build();
      }
      throw cluster.failure(what, new KubernetesClientException(status));
    }
    throw new CliException(ExitCodes.ERROR, what + ": HTTP " + code + " " + response.body());
  }
}
