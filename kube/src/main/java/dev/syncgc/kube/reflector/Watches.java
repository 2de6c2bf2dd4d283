package dev.syncgc.kube.reflector;

/** The tracked kinds' watches: how many reflectors there are, and how many are watching now (for liveness). */
public record Watches(int reflectors, int watching) {}
