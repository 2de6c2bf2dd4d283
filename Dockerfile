# Multi-stage build of the operator image: build with Maven and a JDK, cut a runtime down to the
# modules the operator uses (jlink), run it on plain Debian as a non-root user (docs/benchmarks.md,
# "Operator image": size and time to ready, before and after; an AppCDS archive was measured and dropped).
# The base images are build arguments: the defaults are the public images by tag, for a developer's
# build; without a registry, e2e/images.sh builds local equivalents from Debian packages and passes
# them. A release (`make dist-image`) names both by digest (name@sha256:..., or sha256:<image ID> for
# one built here) and refuses a tag; the final stage records them in its labels (docs/usage.md,
# "Publishing a release").
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# every module's pom: Maven reads the whole reactor even when it builds one module
COPY pom.xml .
COPY kube/pom.xml kube/
COPY operator/pom.xml operator/
COPY cli/pom.xml cli/
COPY e2e/pom.xml e2e/
COPY bench/pom.xml bench/
# the core and the kube edge (syncgc's own modules) are installed first: go-offline resolves the
# operator's dependencies from the local repository and cannot take a module of the reactor that is not built
COPY core core
COPY kube kube
RUN mvn -B -q -pl core,kube -am install -DskipTests && mvn -B -q -pl operator dependency:go-offline
COPY operator/src operator/src
RUN mvn -B -q -pl operator -am package -DskipTests
# The modules jdeps finds in the jar and its dependencies, plus jdk.crypto.ec, which jdeps cannot see:
# TLS to the API server negotiates ECDHE through it. --generate-cds-archive: the JDK classes' archive,
# as a full JDK ships it.
RUN jlink --add-modules "$(jdeps --ignore-missing-deps --print-module-deps --multi-release 17 \
      operator/target/syncgc-operator.jar),jdk.crypto.ec" \
    --strip-java-debug-attributes --no-man-pages --no-header-files --generate-cds-archive --output /opt/jre

FROM ${RUNTIME_IMAGE}
# What the image is, for registries and scanners (OCI annotation keys). `make dist-image` passes the
# version (the chart's appVersion), the git commit and the repository's URL.
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/syncgc/syncgc
# what the image was built from, for its provenance (e2e/sign.sh): the base images as given, and the
# sha256 of this Dockerfile (`make dist-image` passes it)
ARG BUILD_IMAGE
ARG RUNTIME_IMAGE
ARG DOCKERFILE_SHA256=unknown
LABEL org.opencontainers.image.title="syncgc-operator" \
      org.opencontainers.image.description="syncgc: synchronous garbage collection for Kubernetes custom resources" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="${RUNTIME_IMAGE}" \
      dev.syncgc.image.build-image="${BUILD_IMAGE}" \
      dev.syncgc.image.dockerfile-sha256="${DOCKERFILE_SHA256}"
COPY --from=build /opt/jre /opt/jre
ENV JAVA_HOME=/opt/jre PATH=/opt/jre/bin:$PATH
# the revision label of the operator's syncgc_build_info metric
ENV SYNCGC_REVISION=${REVISION}
COPY LICENSE /app/LICENSE
COPY --from=build /src/operator/target/syncgc-operator.jar /app/syncgc-operator.jar
USER 65532:65532
EXPOSE 8080
# -XX:+ExitOnOutOfMemoryError: out of heap, the JVM exits and the kubelet restarts the Pod (the chart
# passes it in JDK_JAVA_OPTIONS too, for images built otherwise)
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/syncgc-operator.jar"]
