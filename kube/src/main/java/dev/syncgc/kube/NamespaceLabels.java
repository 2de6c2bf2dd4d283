package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The labels of every namespace, for policies' namespace selectors; tells when they change. */
public final class NamespaceLabels implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NamespaceLabels.class);
  private final SharedIndexInformer<Namespace> informer;

  public NamespaceLabels(KubernetesClient client) {
    informer = client.namespaces().runnableInformer(0);
    informer.exceptionHandler((started, t) -> {
      log.warn("namespace watch failed (policies' namespace selectors see no labels) error={}", t.toString());
      return true;
    });
  }

  /** Starts watching; {@code changed} is told the name of a namespace whose labels changed. */
  public CompletableFuture<Void> start(Consumer<String> changed) {
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Namespace ns) {
        if (ns.getMetadata().getLabels() != null && !ns.getMetadata().getLabels().isEmpty()) {
          changed.accept(ns.getMetadata().getName()); // its objects may have been seen before it
        }
      }

      @Override
      public void onUpdate(Namespace oldNs, Namespace ns) {
        if (!Objects.equals(oldNs.getMetadata().getLabels(), ns.getMetadata().getLabels())) {
          changed.accept(ns.getMetadata().getName());
        }
      }

      @Override
      public void onDelete(Namespace ns, boolean finalStateUnknown) {}
    });
    return informer.start().toCompletableFuture().thenApply(v -> null);
  }

  /** The labels of a namespace; empty if it is not known. */
  public Map<String, String> of(String namespace) {
    Namespace ns = informer.getStore().getByKey(namespace);
    Map<String, String> labels = ns == null ? null : ns.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  @Override
  public void close() {
    informer.stop();
  }
}
