package dev.syncgc.e2e.soak;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/** What every round of one soak shares: the cluster, the record keepers and the threads. */
record SoakContext(long seed, KubernetesClient client, ObjectFactory objects, Actions actions, Holds holds,
    EtcdDeletions etcd, AuditLog audit, AuditCheck auditCheck, Checks checks, Faults faults,
    ExecutorService workers, ScheduledExecutorService timer, PrintStream log) {}
