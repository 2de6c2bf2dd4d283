# syncgc — common tasks. `make help` lists them.
SHELL := /bin/bash
MVN ?= mvn -B

SOAK_ARGS ?= -Dsyncgc.soak.duration=30m -Dsyncgc.soak.scenarios=8 -Dsyncgc.soak.objects=40

PREFIX ?= $(HOME)/.local/bin

.PHONY: cli-docs-check mutation chart-lint chart-test chart-docs chart-schema e2e-differential e2e-peer e2e-peer-down e2e-nogc e2e-nogc-down bench-growth test-kind test-kind-user-path test-kind-restricted test-kind-upgrade test-kind-its kind-up kind-down test-image plugin install-plugin soak help demo test unit-test e2e build cluster-up cluster-down cluster-status jar crds clean bench bench-scale bench-jars bench-plot bench-guard

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

demo: jar ## start the local control plane and the operator, and delete a small tree synchronously
	e2e/demo.sh

# e2e/ran-tests.sh runs the ITs chosen (-Dit.test) and fails when they ran nothing (CONTRIBUTING.md, "Test")
RAN_TESTS := e2e/ran-tests.sh
# The e2e tests alone, after a build of the modules they run (IT_MODULES; a target may name more):
# the unit tests are skipped. What $(RAN_TESTS) runs with the ITs it chooses.
IT_MODULES = operator,e2e
VERIFY_ITS = $(MVN) -pl $(IT_MODULES) -am verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false

test: ## every test: unit tests, then e2e against KUBECONFIG or the local control plane
	$(RAN_TESTS) all -- $(MVN) verify

unit-test: ## unit and property tests only (no cluster), the benchmark's included
	$(MVN) -pl core,kube,operator,cli,bench test

MUTATION_ARGS ?=
mutation: ## mutation testing of core/ (PIT): fails below the floor (mutationThreshold, core/pom.xml); report in core/target/mutation/pit-reports (MUTATION_ARGS)
	$(MVN) -pl core -Pmutation test-compile org.pitest:pitest-maven:mutationCoverage $(MUTATION_ARGS)

e2e: jar ## end-to-end tests only
	$(RAN_TESTS) all -- $(MVN) -pl e2e verify

soak: ## chaos soak on the local control plane: random graphs, faults, an oracle; writes docs/soak.md (SOAK_ARGS)
	$(RAN_TESTS) SoakIT -- $(VERIFY_ITS) -Dsyncgc.soak.report=$(CURDIR)/docs/soak.md $(SOAK_ARGS)

test-image: ## build the operator image from the Dockerfile (Docker started by e2e/docker.sh) and run it as the chart does
	eval "$$(e2e/docker.sh up)" && image=$$(e2e/images.sh operator) && \
	  $(RAN_TESTS) OperatorImageIT -- $(VERIFY_ITS) -Dsyncgc.operatorImage=$$image

KIND_ITS ?= $(shell cat e2e/kind/tests.txt | grep -v '^\#' | paste -sd, -)

kind-up: ## a kind cluster with the chart installed from the image of the Dockerfile (SYNCGC_OFFLINE=1: every image built here)
	@eval "$$(e2e/docker.sh env-if-ours)"; SYNCGC_KIND_VALUES=e2e/kind/e2e-values.yaml e2e/kind.sh up

kind-down: ## delete the kind cluster
	e2e/kind.sh down

test-kind: test-kind-its test-kind-user-path test-kind-upgrade ## the user path from dist/ on kind, the upgrade from the last release, then the e2e tests of e2e/kind/tests.txt against the chart's in-cluster operator (KIND_ITS=... to choose), then the restricted RBAC mode on the same release, uninstalled last
	@eval "$$(e2e/docker.sh env-if-ours)"; eval "$$(SYNCGC_KIND_VALUES=e2e/kind/e2e-values.yaml e2e/kind.sh up)" && \
	  export PATH="$$PATH:$${SYNCGC_CACHE:-$$HOME/.cache/syncgc}/tools" && \
	  SYNCGC_E2E_OPERATOR=chart $(RAN_TESTS) '$(KIND_ITS)' -- $(VERIFY_ITS) && \
	  e2e/kind-restricted.sh
test-kind: IT_MODULES = operator,cli,e2e

# before the kind cluster and the images: every class of KIND_ITS (e2e/kind/tests.txt) is a test class
test-kind-its:
	@$(RAN_TESTS) names '$(KIND_ITS)'

test-kind-user-path: ## on kind, as a user: make dist + dist-image, helm install of the packaged chart, the krew archive's plugin deleting 1,000-dependent trees, helm uninstall mid-deletion
	@eval "$$(e2e/docker.sh env-if-ours)"; e2e/kind-user-path.sh

test-kind-restricted: ## on kind: helm upgrade of the chart to the restricted RBAC mode (ConfigMaps only), its start warning naming a kind it may not list, a cascade kept by an owner of that kind, helm uninstall releasing the granted kinds and naming the others
	@eval "$$(e2e/docker.sh env-if-ours)"; eval "$$(SYNCGC_KIND_VALUES=e2e/kind/e2e-values.yaml e2e/kind.sh up)" && \
	  e2e/kind-restricted.sh

test-kind-upgrade: ## on kind: helm upgrade from the last release's chart and image (SYNCGC_PREVIOUS_RELEASE in e2e/common.sh) to this tree's, mid-cascade; every deletion finishes, nothing else is deleted
	@eval "$$(e2e/docker.sh env-if-ours)"; e2e/kind-upgrade.sh

NOGC_ITS ?= $(shell grep -v '^\#' e2e/nogc/tests.txt | paste -sd, -)
# The control plane of e2e-nogc: its own ports and data, so that it never meets the one of make test.
NOGC_CLUSTER ?= SYNCGC_ETCD_PORT=24790 SYNCGC_ETCD_PEER_PORT=24800 SYNCGC_APISERVER_PORT=17443 SYNCGC_KCM_PORT=17257 \
  SYNCGC_KWOK_PORT=17080 SYNCGC_CLUSTER_DIR=$${SYNCGC_CACHE:-$$HOME/.cache/syncgc}/cluster-nogc
# e2e/cluster.sh's kube-controller-manager controllers less garbage-collector-controller
NOGC_KCM_CONTROLLERS := namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller

e2e-nogc: ## the e2e tests of e2e/nogc/tests.txt on a second local control plane without kube-controller-manager's garbage collector (NOGC_ITS=...)
	@$(RAN_TESTS) names '$(NOGC_ITS)' && export $(NOGC_CLUSTER) SYNCGC_KCM_CONTROLLERS=$(NOGC_KCM_CONTROLLERS) SYNCGC_E2E_NO_KCM_GC=1 && unset KUBECONFIG && \
	  if [[ $$(e2e/cluster.sh builtin-gc 2>/dev/null) != off ]]; then e2e/cluster.sh down && e2e/cluster.sh up; fi && \
	  $(RAN_TESTS) '$(NOGC_ITS)' -- $(VERIFY_ITS)

DIFFERENTIAL_WORLDS ?= 40
e2e-differential: jar ## syncgc against the built-in collector's foreground deletion on random worlds (DIFFERENTIAL_WORLDS, or DIFFERENTIAL_SEED to replay one)
	$(RAN_TESTS) CoOwnerDifferentialIT -- $(VERIFY_ITS) \
	  -Dsyncgc.differential.worlds=$(DIFFERENTIAL_WORLDS) $(if $(DIFFERENTIAL_SEED),-Dsyncgc.differential.seed=$(DIFFERENTIAL_SEED))

e2e-nogc-down: ## stop the control plane of e2e-nogc and remove its data
	@export $(NOGC_CLUSTER) && e2e/cluster.sh down

# The control plane of e2e-peer: its own ports and data, so that it never meets the one of make test.
PEER_CLUSTER ?= SYNCGC_ETCD_PORT=25790 SYNCGC_ETCD_PEER_PORT=25800 SYNCGC_APISERVER_PORT=18443 SYNCGC_KCM_PORT=18257 \
  SYNCGC_KWOK_PORT=18090 SYNCGC_CLUSTER_DIR=$${SYNCGC_CACHE:-$$HOME/.cache/syncgc}/cluster-peer

e2e-peer: ## Kubernetes' own garbage-collector e2e tests with syncgc and a policy opting core, apps and batch in (e2e/peer)
	@export $(PEER_CLUSTER) && unset KUBECONFIG && e2e/peer/run.sh

e2e-peer-down: ## stop the operator and the control plane of e2e-peer, remove its data
	@export $(PEER_CLUSTER) && e2e/peer/run.sh down

cli-docs-check: ## run every command block of docs/cli.md against the local control plane (or KUBECONFIG's) and compare the outputs (e2e/cli-docs.sh)
	MVN="$(MVN)" e2e/cli-docs.sh

plugin: ## build the kubectl plugin: cli/target/syncgc-cli.jar, run by cli/bin/kubectl-syncgc (core and kube with it, not the operator)
	$(MVN) -q -pl cli -am package -DskipTests

install-plugin: plugin ## install kubectl-syncgc and its jar into PREFIX (default ~/.local/bin): kubectl syncgc ...
	install -d $(PREFIX)
	install -m 0755 cli/bin/kubectl-syncgc cli/bin/kubectl_complete-syncgc $(PREFIX)/
	install -m 0644 cli/target/syncgc-cli.jar $(PREFIX)/syncgc-cli.jar
	@echo "installed: kubectl syncgc --help (make sure $(PREFIX) is on PATH)"

jar: ## build operator/target/syncgc-operator.jar
	$(MVN) -q -pl operator -am install -DskipTests

build: ## build the control-plane binaries (cached in ~/.cache/syncgc)
	e2e/cluster.sh build

cluster-up: ## start the local control plane
	e2e/cluster.sh up

cluster-down: ## stop it and remove its data
	e2e/cluster.sh down

cluster-status: ## what runs
	e2e/cluster.sh status

chart-lint: ## ct lint of the chart (ct.yaml): Chart.yaml schema, yamllint, helm lint --strict with helm/syncgc/ci/*-values.yaml (ct, yamllint, yamale cached by e2e/ct.sh)
	e2e/ct.sh lint

chart-test: ## render checks of the chart: helm-unittest (helm/syncgc/tests/*_test.yaml), kubeconform -strict against Kubernetes K8S_VERSION's schemas, helm/README.md as helm-docs makes it, values.schema.json as values-schema makes it (tools and schemas cached by e2e/chart-test.sh)
	e2e/chart-test.sh test

chart-docs: ## write helm/README.md from helm/README.md.gotmpl and values.yaml's comments (helm-docs: the table of every value)
	e2e/chart-test.sh docs

chart-schema: ## write helm/syncgc/values.schema.json from values.yaml: types from the defaults, descriptions from the comments, the rest from the `# @schema` annotations (e2e/toolchain/values-schema)
	e2e/chart-test.sh schema

crds: ## regenerate crds/ and the chart's copy from the Java classes (kube's PolicyCrd, through CrdFilesTest)
	$(MVN) -q -pl kube -am test -Dtest=CrdFilesTest -Dsurefire.failIfNoSpecifiedTests=false -Dsyncgc.crds.update=true

BENCH_ARGS ?=
BENCH_JAR := bench/target/syncgc-bench.jar

bench: bench-jars ## benchmark against the built-in foreground deletion and the floor (flags: BENCH_ARGS="--help")
	e2e/cluster.sh up >/dev/null
	eval "$$(e2e/cluster.sh env)" && java -jar $(BENCH_JAR) compare $(BENCH_ARGS)
	$(MAKE) --no-print-directory bench-plot

GROWTH_ARGS ?= --wide 1000,10000,100000 --tree 10x3,10x4,10x5 --repetitions 1 \
  --contenders syncgc-unlimited,floor-unlimited,syncgc,floor,foreground-qps,foreground \
  --only syncgc=wide-1000/tree-10x3/wide-10000/tree-10x4,floor=wide-1000/tree-10x3/wide-10000/tree-10x4 \
  --only foreground-qps=wide-1000/tree-10x3/wide-10000/tree-10x4,foreground=wide-1000/tree-10x3/tree-10x4

bench-growth: bench-jars ## cost as work grows, 1,000 to 100,000 objects (about 80 min; GROWTH_ARGS, BENCH_ARGS)
	e2e/cluster.sh up >/dev/null
	eval "$$(e2e/cluster.sh env)" && java -jar $(BENCH_JAR) compare --growth $(GROWTH_ARGS) $(BENCH_ARGS)
	$(MAKE) --no-print-directory bench-plot

bench-scale: bench-jars ## 100,000 tracked objects: heap per object, graph rebuild, latency, beside kube-controller-manager (BENCH_ARGS)
	e2e/cluster.sh up >/dev/null
	eval "$$(e2e/cluster.sh env)" && java -jar $(BENCH_JAR) scale $(BENCH_ARGS)

# The request guard: one short compare (no warm-up: the operator's first cascades), then `guard` judges the
# API requests syncgc sent per cascade against SPEC's minimum (a count, never a time; docs/benchmarks.md,
# "The request guard") and appends the ratios to the floor and the CPU to GUARD_HISTORY. The operator sends no
# WaitingForDependents Events (one per owner and 30 s of waiting: their number follows the machine's load).
GUARD_ARGS ?= --contenders syncgc-unlimited,floor-unlimited --wide 2000 --tree 10x3 --repetitions 1 --warm-up none
GUARD_HISTORY ?= docs/bench-guard.csv
GUARD_BUILD ?= bench-jars # empty: the jars as they are (CI: make test built them)

bench-guard: $(GUARD_BUILD) ## short run (wide-2000, tree-10x3): fails when syncgc's API requests per cascade exceed SPEC's minimum by over 5 % (GUARD_ARGS, BENCH_ARGS)
	e2e/cluster.sh up >/dev/null
	eval "$$(e2e/cluster.sh env)" && \
	  SYNCGC_WAITING_EVENT_INTERVAL=1h java -jar $(BENCH_JAR) compare $(GUARD_ARGS) --csv bench/target/guard.csv --docs bench/target/guard.md $(BENCH_ARGS) && \
	  java -jar $(BENCH_JAR) guard --csv bench/target/guard.csv --history $(GUARD_HISTORY)

bench-jars:
	$(MVN) -q -pl operator,bench -am package -DskipTests

bench-plot: ## draw docs/benchmarks.png from docs/benchmarks.csv
	python3 -c 'import matplotlib' 2>/dev/null || pip install --quiet matplotlib
	python3 bench/plot.py docs/benchmarks.csv docs/benchmarks.png
	[ ! -f docs/benchmarks-growth.csv ] || python3 bench/plot.py docs/benchmarks-growth.csv docs/benchmarks-growth.png --loglog

clean:
	$(MVN) -q clean

# --- release artifacts (docs/usage.md, "Publishing a release")
.PHONY: dist dist-check dist-image dist-sign
VERSION ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' helm/syncgc/Chart.yaml)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_URL ?= https://github.com/syncgc/syncgc
IMAGE ?= syncgc/operator
DOCKER_BUILD_ARGS ?=
# the release image's base images, by digest: make dist-image $(e2e/images.sh pins) (pins local: the ones built here)
BUILD_IMAGE ?=
RUNTIME_IMAGE ?=
HELM ?= $(shell command -v helm 2>/dev/null || echo $${SYNCGC_CACHE:-$$HOME/.cache/syncgc}/tools/helm)
DIST := dist
KREW_ARCHIVE := $(DIST)/kubectl-syncgc-v$(VERSION).tar.gz

dist: ## release artifacts in dist/ (VERSION, default the chart's appVersion): chart package, krew archive + manifest, SBOMs
	rm -rf $(DIST) && mkdir -p $(DIST)
	$(MVN) -q -pl operator,cli -am package -DskipTests org.cyclonedx:cyclonedx-maven-plugin:makeBom
	@# Artifact Hub's artifacthub.io/images (the image it scans): only with IMAGE given, the image you push,
	@# at VERSION; the project publishes none, so the chart in the repository names none
	stage=$$(mktemp -d) && cp -r helm/syncgc $$stage/ && \
	  if [ "$(origin IMAGE)" != file ]; then \
	    sed -i 's#^annotations:$$#&\n  artifacthub.io/images: |\n    - name: operator\n      image: $(IMAGE):$(VERSION)#' $$stage/syncgc/Chart.yaml; fi && \
	  $(HELM) package $$stage/syncgc --version $(VERSION) --app-version $(VERSION) -d $(DIST) && rm -rf $$stage
	stage=$$(mktemp -d) && install -m 0755 cli/bin/kubectl-syncgc cli/bin/kubectl_complete-syncgc $$stage/ && \
	  install -m 0644 cli/target/syncgc-cli.jar LICENSE $$stage/ && \
	  tar -C $$stage --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - \
	    kubectl-syncgc kubectl_complete-syncgc syncgc-cli.jar LICENSE | gzip -n > $(KREW_ARCHIVE) && rm -rf $$stage
	cli/krew/manifest.sh $(VERSION) $(KREW_ARCHIVE) > $(DIST)/syncgc.yaml
	cp operator/target/bom.json $(DIST)/syncgc-operator-$(VERSION).cdx.json
	cp cli/target/bom.json $(DIST)/kubectl-syncgc-$(VERSION).cdx.json
	cd $(DIST) && sha256sum -- * > SHA256SUMS
	@ls -l $(DIST)

dist-check: ## check dist/ (e2e/dist-check.sh): the krew manifest's sha256 and files against its archive, no Prometheus class in the plugin's jar, the chart package, the SBOMs, the image labels
	VERSION=$(VERSION) DIST=$(DIST) HELM=$(HELM) IMAGE=$(IMAGE) e2e/dist-check.sh

dist-image: ## the operator image $(IMAGE):$(VERSION) with org.opencontainers.image.* labels, on BUILD_IMAGE and RUNTIME_IMAGE given by digest, a tag refused (e2e/images.sh pins prints them; needs Docker)
	e2e/images.sh check-pinned "$(BUILD_IMAGE)" "$(RUNTIME_IMAGE)"
	docker build $(DOCKER_BUILD_ARGS) --build-arg BUILD_IMAGE=$(BUILD_IMAGE) --build-arg RUNTIME_IMAGE=$(RUNTIME_IMAGE) \
	  --build-arg DOCKERFILE_SHA256=$$(sha256sum Dockerfile | cut -d' ' -f1) \
	  --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) \
	  --build-arg SOURCE=$(SOURCE_URL) -t $(IMAGE):$(VERSION) .
	docker inspect --format '{{ json .Config.Labels }}' $(IMAGE):$(VERSION)

dist-sign: ## after dist + dist-image: the image's SBOM (syft) into dist/, the image signed, the SBOM and a SLSA provenance attested (cosign) in a throwaway registry on loopback, the chart signed (helm provenance, GPG) and SHA256SUMS (cosign sign-blob), all verified (e2e/sign.sh; SYNCGC_COSIGN_KEY, SYNCGC_GPG_KEYRING for real keys)
	VERSION=$(VERSION) DIST=$(DIST) HELM=$(HELM) e2e/sign.sh release $(IMAGE):$(VERSION)
