# syncgc — common tasks. `make help` lists them.
SHELL := /bin/bash
MVN ?= mvn -B

.PHONY: help demo test unit-test e2e build cluster-up cluster-down cluster-status jar crds clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

demo: jar ## start the local control plane and the operator, and delete a small tree synchronously
	e2e/demo.sh

test: ## every test: unit tests, then e2e against KUBECONFIG or the local control plane
	$(MVN) verify

unit-test: ## unit and property tests only (no cluster)
	$(MVN) -pl operator test

e2e: jar ## end-to-end tests only
	$(MVN) -pl e2e verify

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

crds: ## regenerate crds/ and the chart's copy from the Java classes
	$(MVN) -q -pl operator process-classes
	cp operator/target/classes/META-INF/fabric8/*.yml crds/
	cp operator/target/classes/META-INF/fabric8/*.yml helm/syncgc/crds/

clean:
	$(MVN) -q clean
