package dev.syncgc.cli.commands;

import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.Kinds;
import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What {@code kubectl_complete-syncgc} runs: kubectl (1.26+) calls it with the words after
 * {@code kubectl syncgc}, the last one the word being completed (empty for a new word), and reads
 * the candidates one a line, then cobra's {@code :<directive>}. Subcommands and flags come from the
 * command line's own model; kinds from discovery, names from a metadata-only list, namespaces and
 * contexts from the cluster and the kubeconfig.
 */
public final class Complete {
  /** The hidden first argument that asks for completion; what follows is never parsed as flags. */
  public static final String NAME = "__complete";
  /** cobra's ShellCompDirective: 1 an error (nothing offered), 4 no file names, 0 the shell's default (files). */
  static final int ERROR = 1;
  static final int NO_FILES = 4;
  static final int FILES = 0;

  /** What completion reads from the cluster. */
  interface Source {
    List<String> kinds();

    List<String> names(String kind, String namespace);

    List<String> namespaces();

    List<String> contexts();
  }

  /** Candidates, and what the shell should do besides. */
  record Result(List<String> candidates, int directive) {}

  private Complete() {}

  /** Prints the candidates for the last of {@code words}, then the directive; always exits 0. */
  public static int run(CommandSpec root, List<String> words) {
    Result r;
    try {
      r = complete(root, words, new Live(words));
    } catch (RuntimeException e) {
      r = new Result(List.of(), ERROR); // no cluster, no rights: nothing to offer, never a stack trace in the prompt
    }
    r.candidates().forEach(System.out::println);
    System.out.println(":" + r.directive());
    return ExitCodes.OK;
  }

  /** The candidates for the last of {@code words}. */
  static Result complete(CommandSpec root, List<String> words, Source source) {
    List<String> w = words.isEmpty() ? List.of("") : words;
    String partial = w.get(w.size() - 1);
    CommandSpec command = root.subcommands().containsKey(w.get(0)) ? root.subcommands().get(w.get(0)).getCommandSpec() : null;
    if (w.size() == 1 || command == null) {
      return w.size() == 1 ? offer(visible(root), partial, NO_FILES) : new Result(List.of(), NO_FILES);
    }
    List<String> positionals = new ArrayList<>();
    for (int i = 1; i < w.size() - 1; i++) {
      OptionSpec o = option(command, w.get(i));
      if (o != null && takesValue(o) && !w.get(i).contains("=")) {
        i++; // its value
      } else if (o == null && !w.get(i).startsWith("-")) {
        positionals.add(w.get(i));
      }
    }
    OptionSpec previous = w.size() > 2 ? option(command, w.get(w.size() - 2)) : null;
    if (previous != null && takesValue(previous) && !w.get(w.size() - 2).contains("=")) {
      return value(previous, partial, source);
    }
    if (partial.startsWith("-")) {
      List<String> flags = new ArrayList<>();
      command.options().stream().filter(o -> !o.hidden()).forEach(o -> flags.addAll(List.of(o.names())));
      return offer(flags, partial, NO_FILES);
    }
    if (command.positionalParameters().isEmpty() || command.name().equals("completion")) {
      return command.name().equals("completion") && positionals.isEmpty()
          ? offer(List.of("bash", "zsh"), partial, NO_FILES) : new Result(List.of(), NO_FILES);
    }
    String namespace = namespace(command, w);
    if (positionals.isEmpty()) {
      int slash = partial.indexOf('/');
      if (slash < 0) {
        return offer(source.kinds(), partial, NO_FILES);
      }
      String kind = partial.substring(0, slash);
      return offer(source.names(kind, namespace).stream().map(n -> kind + "/" + n).toList(), partial, NO_FILES);
    }
    return positionals.size() == 1 && !positionals.get(0).contains("/")
        ? offer(source.names(positionals.get(0), namespace), partial, NO_FILES) : new Result(List.of(), NO_FILES);
  }

  private static Result value(OptionSpec option, String partial, Source source) {
    List<String> names = List.of(option.names());
    if (names.contains("--namespace") || names.contains("--operator-namespace")) {
      return offer(source.namespaces(), partial, NO_FILES);
    }
    if (names.contains("--context")) {
      return offer(source.contexts(), partial, NO_FILES);
    }
    if (names.contains("--output")) {
      return offer(List.of("text", "json", "yaml"), partial, NO_FILES);
    }
    if (names.contains("--cascade")) {
      return offer(List.of("background", "foreground", "orphan"), partial, NO_FILES);
    }
    boolean file = names.contains("--kubeconfig") || names.contains("--certificate-authority");
    return new Result(List.of(), file ? FILES : NO_FILES);
  }

  private static Result offer(List<String> all, String partial, int directive) {
    return new Result(new TreeSet<>(all.stream().filter(c -> c.startsWith(partial)).toList()).stream().toList(), directive);
  }

  private static List<String> visible(CommandSpec root) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : root.subcommands().entrySet()) {
      if (!e.getValue().getCommandSpec().usageMessage().hidden()) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  private static OptionSpec option(CommandSpec command, String word) {
    return word.startsWith("-") ? command.findOption(word.contains("=") ? word.substring(0, word.indexOf('=')) : word) : null;
  }

  private static boolean takesValue(OptionSpec o) {
    return o.arity().min() > 0;
  }

  /** The namespace given with -n on the line so far, null when none (the context's then). */
  private static String namespace(CommandSpec command, List<String> w) {
    for (int i = 1; i < w.size() - 1; i++) {
      OptionSpec o = option(command, w.get(i));
      if (o != null && List.of(o.names()).contains("--namespace")) {
        return w.get(i).contains("=") ? w.get(i).substring(w.get(i).indexOf('=') + 1) : w.get(i + 1);
      }
    }
    return null;
  }

  /** The cluster of the words' --kubeconfig, --context and --as, connected at the first question. */
  private static final class Live implements Source {
    private final ClusterOptions options = new ClusterOptions();
    private Cluster cluster;
    private Kinds kinds;

    Live(List<String> words) {
      // the flags the plugin would connect with; the rest of the line does not matter here
      new CommandLine(options).setUnmatchedArgumentsAllowed(true).parseArgs(words.toArray(String[]::new));
    }

    private Cluster cluster() {
      if (cluster == null) {
        cluster = Cluster.connect(options);
        kinds = new Kinds(cluster);
      }
      return cluster;
    }

    @Override
    public List<String> kinds() {
      cluster();
      return kinds.served().stream().map(s -> s.kind().plural()).toList();
    }

    @Override
    public List<String> names(String kind, String namespace) {
      Cluster c = cluster();
      TrackedKind k = kinds.named(kind);
      List<String> names = new ArrayList<>();
      new KubeApi(c.client, RateLimiter.unlimited(), CallCounts.NONE)
          .listAllMetadata(k, namespace != null ? namespace : c.namespace, o -> names.add(o.getMetadata().getName()));
      return names;
    }

    @Override
    public List<String> namespaces() {
      List<String> names = new ArrayList<>();
      Cluster c = cluster();
      new KubeApi(c.client, RateLimiter.unlimited(), CallCounts.NONE)
          .listAllMetadata(kinds.named("namespaces"), null, o -> names.add(o.getMetadata().getName()));
      return names;
    }

    @Override
    public List<String> contexts() {
      Config config = options.kubeconfig != null ? Config.fromKubeconfig(new File(options.kubeconfig))
          : Config.autoConfigure(null);
      return config.getContexts().stream().map(NamedContext::getName).toList();
    }
  }
}
