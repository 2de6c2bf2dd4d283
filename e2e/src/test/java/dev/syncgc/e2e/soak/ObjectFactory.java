package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Creates the model's objects for real, and reads them back. */
final class ObjectFactory {
  private final KubernetesClient client;

  ObjectFactory(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Creates the objects in order; references to owners created later (rings) are added by a patch
   * once everything exists.
   */
  void createAll(List<SoakObject> objects) {
    List<SoakObject> incomplete = new ArrayList<>();
    for (SoakObject o : objects) {
      if (!o.owners.stream().allMatch(p -> p.uid != null)) {
        incomplete.add(o);
      }
      create(o);
    }
    for (SoakObject o : incomplete) {
      String patch = Serialization.asJson(Map.of("metadata", Map.of("ownerReferences", references(o))));
      resource(o).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
  }

  void create(SoakObject o) {
    ObjectMeta meta = new ObjectMetaBuilder().withName(o.name).withNamespace(o.namespace)
        .withLabels(Map.copyOf(o.labels)).withAnnotations(Map.copyOf(o.annotations))
        .withOwnerReferences(references(o))
        .withFinalizers(o.held() ? List.of(SoakObject.HOLD) : List.of()).build();
    HasMetadata created = switch (o.kind) {
      case WIDGET, CLUSTER_WIDGET -> {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(o.kind.apiVersion);
        r.setKind(o.kind.kind);
        r.setMetadata(meta);
        yield (o.kind == SoakObject.Kind.WIDGET ? TestCrds.widgets(client).inNamespace(o.namespace)
            : TestCrds.clusterWidgets(client)).resource(r).create();
      }
      case CONFIGMAP -> client.configMaps().inNamespace(o.namespace)
          .resource(new ConfigMapBuilder().withMetadata(meta).addToData("soak", "1").build()).create();
      case POD -> client.pods().inNamespace(o.namespace).resource(new PodBuilder().withMetadata(meta)
          .withNewSpec().withNodeName(TestCluster.get().nodeName()).withAutomountServiceAccountToken(false)
          .withTerminationGracePeriodSeconds(1L)
          .addNewContainer().withName("pause").withImage("registry.k8s.io/pause:3.10").endContainer()
          .endSpec().build()).create();
    };
    o.uid = created.getMetadata().getUid();
  }

  private List<OwnerReference> references(SoakObject o) {
    List<OwnerReference> refs = new ArrayList<>();
    for (SoakObject p : o.owners) {
      if (p.uid != null) {
        boolean keeper = p.kind == SoakObject.Kind.CLUSTER_WIDGET && p.name.contains("-keeper-");
        refs.add(new OwnerReferenceBuilder().withApiVersion(p.kind.apiVersion).withKind(p.kind.kind)
            .withName(p.name).withUid(p.uid).withBlockOwnerDeletion(!keeper).build());
      }
    }
    if (o.invalidOwner != null) {
      SoakObject p = o.invalidOwner;
      refs.add(new OwnerReferenceBuilder().withApiVersion(p.kind.apiVersion).withKind(p.kind.kind)
          .withName(p.name).withUid(p.uid).build());
    }
    for (SoakObject.Unresolvable u : o.unresolvable) {
      refs.add(new OwnerReferenceBuilder().withApiVersion(u.apiVersion()).withKind(u.kind()).withName(u.name())
          .withUid(u.uid()).build());
    }
    return refs;
  }

  Resource<GenericKubernetesResource> resource(SoakObject o) {
    var kind = client.genericKubernetesResources(o.kind.apiVersion, o.kind.kind);
    return o.namespace == null ? kind.withName(o.name) : kind.inNamespace(o.namespace).withName(o.name);
  }

  /** The object as the API server has it now (null when gone or another object of the same name). */
  GenericKubernetesResource current(SoakObject o) {
    GenericKubernetesResource r = resource(o).get();
    return r != null && r.getMetadata().getUid().equals(o.uid) ? r : null;
  }
}
