package dev.syncgc.release;

import dev.syncgc.core.model.Names;
import dev.syncgc.kube.CrdKinds;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.KubeApi.Result;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs before syncgc is uninstalled (the chart's pre-delete hook), so that nothing is left
 * stuck in Terminating: the operator is stopped first (else it would put finalizers back), then
 * every object loses the syncgc finalizer. An object already being deleted is handed over to
 * Kubernetes' own foreground deletion first, so its dependents still go before it.
 */
public final class FinalizerRelease {
  private static final Logger log = LoggerFactory.getLogger(FinalizerRelease.class);

  /** Counts, for the closing log line and the tests. */
  public record Summary(int released, int handedOver, int failed) {}

  private final KubernetesClient client;
  private final KubeApi api;
  private final Discovery discovery;

  public FinalizerRelease(KubernetesClient client, KubeApi api, Discovery discovery) {
    this.client = client;
    this.api = api;
    this.discovery = discovery;
  }

  /** Scales the operator's Deployment to zero and waits until none of its pods is left. */
  public void stopOperator(String namespace, String deployment, Duration deadline) throws InterruptedException {
    var resource = client.apps().deployments().inNamespace(namespace).withName(deployment);
    var current = resource.get();
    if (current == null) {
      log.info("operator deployment not found namespace={} name={}; nothing to stop", namespace, deployment);
      return;
    }
    resource.scale(0);
    Map<String, String> selector = current.getSpec().getSelector().getMatchLabels();
    long end = System.nanoTime() + deadline.toNanos();
    while (!client.pods().inNamespace(namespace).withLabels(selector).list().getItems().isEmpty()) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("operator pods still running after " + deadline);
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
    log.info("operator stopped namespace={} deployment={}", namespace, deployment);
  }

  public Summary releaseAll(List<String> builtinKinds) {
    List<TrackedKind> kinds = new ArrayList<>();
    for (String spec : builtinKinds) {
      discovery.find(spec).ifPresent(kinds::add);
    }
    for (var crd : client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      CrdKinds.kindOf(crd).ifPresent(kinds::add);
    }
    int released = 0;
    int handedOver = 0;
    int failed = 0;
    for (TrackedKind kind : kinds) {
      for (GenericKubernetesResource object : withFinalizer(kind)) {
        Outcome outcome = release(kind, object);
        switch (outcome) {
          case RELEASED -> released++;
          case HANDED_OVER -> handedOver++;
          case FAILED -> failed++;
        }
      }
    }
    Summary summary = new Summary(released, handedOver, failed);
    log.info("release finished released={} handedOver={} failed={}", released, handedOver, failed);
    return summary;
  }

  private enum Outcome { RELEASED, HANDED_OVER, FAILED }

  private Outcome release(TrackedKind kind, GenericKubernetesResource object) {
    var ref = new dev.syncgc.core.model.ObjectRef(kind.apiVersion(), kind.kind(),
        object.getMetadata().getNamespace(), object.getMetadata().getName(), object.getMetadata().getUid());
    boolean deleting = object.getMetadata().getDeletionTimestamp() != null;
    if (deleting) {
      Result r = api.delete(kind, ref, 0, null, "Foreground");
      if (!r.ok() && !r.gone()) {
        log.warn("could not hand over object={} uid={} error={}", ref, ref.uid(), r.message());
        return Outcome.FAILED;
      }
    }
    for (int attempt = 0; attempt < 5; attempt++) {
      GenericKubernetesResource current = attempt == 0 ? object
          : client.genericKubernetesResources(kind.context()).inNamespace(ref.namespace()).withName(ref.name()).get();
      if (current == null || !ref.uid().equals(current.getMetadata().getUid())) {
        return deleting ? Outcome.HANDED_OVER : Outcome.RELEASED;
      }
      if (!current.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
        return deleting ? Outcome.HANDED_OVER : Outcome.RELEASED;
      }
      Result r = api.patch(kind, ref, KubeApi.JSON_PATCH,
          KubeApi.removeFinalizerPatch(ref.uid(), current.getMetadata().getFinalizers(), Names.FINALIZER));
      if (r.ok() || r.gone()) {
        log.info("{} object={} uid={}", deleting ? "handed over to foreground deletion" : "released", ref, ref.uid());
        return deleting ? Outcome.HANDED_OVER : Outcome.RELEASED;
      }
      if (!r.conflict()) {
        log.warn("could not release object={} uid={} error={}", ref, ref.uid(), r.message());
        return Outcome.FAILED;
      }
    }
    return Outcome.FAILED;
  }

  private List<GenericKubernetesResource> withFinalizer(TrackedKind kind) {
    List<GenericKubernetesResource> found = new ArrayList<>();
    try {
      api.listAll(kind, null, item -> {
        if (item.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
          found.add(item);
        }
      });
    } catch (KubernetesClientException e) {
      log.warn("cannot list kind={} code={}; its objects are not released", kind, e.getCode());
    }
    return found;
  }
}
