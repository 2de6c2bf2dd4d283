package dev.syncgc.policy;

import dev.syncgc.kube.CrdKinds;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the GarbageCollectionPolicies while their CRD exists: their reconciler runs (Java Operator
 * SDK) from the moment the CRD is Established, also when it is created after the start, within a few
 * seconds (a watch of the CRD); when the CRD is deleted no policy is in force and the reconciler stops,
 * and a CRD created again is served again. Only the replica that acts serves them ({@link #start}).
 */
public final class PolicyController implements AutoCloseable {
  public static final String CRD = "garbagecollectionpolicies.syncgc.dev";
  private static final Logger log = LoggerFactory.getLogger(PolicyController.class);
  private static final long RETRY_SECONDS = 2;

  private final KubernetesClient client;
  private final Policies policies;
  private final MicrometerMetrics josdkMetrics;
  /** Every change of what is served, one at a time. */
  private final ScheduledExecutorService changes = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "policy-crd");
    t.setDaemon(true);
    return t;
  });
  private volatile PolicyReconciler reconciler;
  private Operator josdk;
  /** The uid of the CRD whose policies are served, or null. */
  private String servedUid;
  private SharedIndexInformer<CustomResourceDefinition> watch;
  private volatile boolean closed;

  public PolicyController(KubernetesClient client, Policies policies, PrometheusMeterRegistry registry,
      SyncgcMetrics metrics) {
    this.client = client;
    this.policies = policies;
    this.josdkMetrics = MicrometerMetrics.newMicrometerMetricsBuilder(registry).notCollectingMetricsPerResource()
        .build();
    metrics.policiesNotReady(() -> {
      PolicyReconciler r = reconciler;
      return r == null ? 0 : r.notReady();
    });
  }

  /**
   * Before the workers start: if the CRD is Established, puts exactly the policies of a fresh LIST in
   * force (see {@link PolicyReconciler#loadAll}; throws if it cannot) and starts their reconciler; else
   * says that policies are not served yet. Then watches the CRD.
   */
  public void start() {
    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().withName(CRD).get();
    if (established(crd)) {
      serve(crd);
    } else {
      log.warn("CRD {} is not {}: policies are not served until it is (kubectl apply -f crds/);"
          + " syncgc watches for it", CRD, crd == null ? "installed" : "Established");
    }
    watch = client.apiextensions().v1().customResourceDefinitions().withName(CRD)
        .inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(CustomResourceDefinition c) {
            changes.execute(() -> changed(c));
          }

          @Override
          public void onUpdate(CustomResourceDefinition old, CustomResourceDefinition c) {
            changes.execute(() -> changed(c));
          }

          @Override
          public void onDelete(CustomResourceDefinition c, boolean finalStateUnknown) {
            changes.execute(() -> changed(null));
          }
        });
  }

  /** The CRD as it is now ({@code null}: deleted): serves its policies, or stops serving them. */
  private synchronized void changed(CustomResourceDefinition crd) {
    if (closed) {
      return;
    }
    String uid = crd == null ? null : crd.getMetadata().getUid();
    if (servedUid != null && !servedUid.equals(uid)) {
      stopServing();
      log.warn("CRD {} deleted: policies are not served until it is created again", CRD);
    }
    if (servedUid == null && established(crd)) {
      try {
        serve(crd);
      } catch (RuntimeException e) {
        stopServing();
        log.warn("CRD {}: policies could not be served, retrying in {} s error={}", CRD, RETRY_SECONDS, e.toString());
        changes.schedule(this::retry, RETRY_SECONDS, TimeUnit.SECONDS);
      }
    }
  }

  /** The CRD read again after a failure to serve it; a failure to read it is retried too. */
  private void retry() {
    try {
      changed(client.apiextensions().v1().customResourceDefinitions().withName(CRD).get());
    } catch (RuntimeException e) {
      log.warn("CRD {}: could not be read, retrying in {} s error={}", CRD, RETRY_SECONDS, e.toString());
      changes.schedule(this::retry, RETRY_SECONDS, TimeUnit.SECONDS);
    }
  }

  private synchronized void serve(CustomResourceDefinition crd) {
    PolicyReconciler.loadAll(client, policies); // before the reconciler runs, see loadAll
    PolicyReconciler r = new PolicyReconciler(policies);
    Operator o = new Operator(c -> c.withKubernetesClient(client).withMetrics(josdkMetrics)
        .withCloseClientOnStop(false));
    josdk = o;
    o.register(r);
    o.start();
    reconciler = r;
    servedUid = crd.getMetadata().getUid();
    log.info("policies served crd={} uid={}", CRD, servedUid);
  }

  /** No policy is in force (the API server deletes them with their CRD), and their reconciler stops. */
  private synchronized void stopServing() {
    if (josdk != null) {
      try {
        josdk.stop();
      } catch (RuntimeException e) {
        log.warn("while stopping the policy reconciler error={}", e.toString());
      }
    }
    josdk = null;
    reconciler = null;
    servedUid = null;
    policies.replaceAll(List.of());
  }

  /** The CRD exists, is not being deleted, and its kind is served. */
  private static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getMetadata().getDeletionTimestamp() == null && CrdKinds.established(crd);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (watch != null) {
      watch.close();
    }
    changes.shutdownNow();
    if (josdk != null) {
      josdk.stop();
    }
  }
}
