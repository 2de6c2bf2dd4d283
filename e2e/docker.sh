#!/usr/bin/env bash
# A Docker engine for the image builds and kind, started by the project itself when none runs.
#
#   e2e/docker.sh up     use a reachable daemon, else install Debian's docker.io if dockerd is missing
#                        and start dockerd as root with its own data root, socket and pid file under
#                        $SYNCGC_CACHE/docker; the last line is `export DOCKER_HOST=...`
#   e2e/docker.sh down   stop the dockerd that `up` started (by pid file, checked against its command
#                        line); a daemon it did not start is left alone
#   e2e/docker.sh env    print `export DOCKER_HOST=...` for the daemon `up` started
#   e2e/docker.sh env-if-ours   the same, but only while that daemon runs (nothing otherwise)
#
# Environment: SYNCGC_CACHE (default ~/.cache/syncgc), SYNCGC_DOCKER_ROOT (default $SYNCGC_CACHE/docker)
set -euo pipefail
# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

ROOT=${SYNCGC_DOCKER_ROOT:-$CACHE/docker}
SOCK=$ROOT/docker.sock
PIDFILE=$ROOT/dockerd.pid
LOG=$ROOT/dockerd.log

ours_running() {
  [[ -f $PIDFILE ]] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$SOCK"
}

# Docker 20.10 gives a --privileged container (kind's nodes are) every capability the kernel knows,
# and runc fails ("unable to apply caps") where this process's bounding set lacks one, as in a
# sandbox without CAP_SYS_RESOURCE. Then dockerd gets a runc wrapper that leaves the missing ones
# out of each container's spec. Returns 1 (no wrapper needed) when nothing is missing.
runc_wrapper() {
  local missing
  mapfile -t missing < <(missing_capabilities)
  ((${#missing[@]})) || return 1
  command -v jq >/dev/null || apt_install jq \
    || die "jq is needed for the runc wrapper; as root: apt-get install jq"
  local runc list
  runc=$(command -v runc) || die "runc is missing (Debian's docker.io installs it)"
  list=$(printf '"%s",' "${missing[@]}")
  log "capabilities missing from the bounding set, left out of every container: ${missing[*]}"
  cat >"$ROOT/runc-wrapper" <<EOF
#!/bin/sh
# Written by e2e/docker.sh: runc, with capabilities this machine cannot grant (${missing[*]})
# removed from the container's spec before it is created.
# drop: the capability sets at path \$2 of the JSON file \$1, without the missing capabilities
drop() {
  jq --argjson missing '[${list%,}]' "(\$2 // {}) |= with_entries(.value -= \\\$missing)" "\$1" \\
    >"\$1.syncgc" && mv "\$1.syncgc" "\$1"
}
prev=""
for a in "\$@"; do
  case "\$prev" in
    --bundle|-b) [ -f "\$a/config.json" ] && drop "\$a/config.json" .process.capabilities ;; # create, run
    --process|-p) [ -f "\$a" ] && drop "\$a" .capabilities ;; # exec
  esac
  case "\$a" in --bundle=*) [ -f "\${a#--bundle=}/config.json" ] && drop "\${a#--bundle=}/config.json" .process.capabilities ;; esac
  prev="\$a"
done
exec $runc "\$@"
EOF
  chmod 0755 "$ROOT/runc-wrapper"
}

cmd_up() {
  if [[ -z ${DOCKER_HOST:-} ]] && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    log "using the Docker daemon already running"
    echo "export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}"
    return
  fi
  if ours_running; then
    log "dockerd running (pid $(cat "$PIDFILE"))"
    echo "export DOCKER_HOST=unix://$SOCK"
    return
  fi
  if ! command -v dockerd >/dev/null; then
    [[ $(id -u) == 0 ]] || die "dockerd is not installed; as root: apt-get install docker.io (or install Docker)"
    log "installing Debian's docker.io"
    apt_install docker.io || die "cannot install docker.io with apt-get"
  fi
  [[ $(id -u) == 0 ]] || die "starting dockerd needs root (or start Docker yourself and set DOCKER_HOST)"
  mkdir -p "$ROOT/data" "$ROOT/exec"
  local runtime=()
  if runc_wrapper; then
    runtime=(--add-runtime "syncgc-runc=$ROOT/runc-wrapper" --default-runtime syncgc-runc)
  fi
  log "starting dockerd (data root $ROOT/data, log $LOG)"
  nohup dockerd --data-root "$ROOT/data" --exec-root "$ROOT/exec" --pidfile "$PIDFILE" -H "unix://$SOCK" \
    ${runtime[@]+"${runtime[@]}"} >"$LOG" 2>&1 &
  for _ in $(seq 1 120); do
    if DOCKER_HOST=unix://$SOCK docker info >/dev/null 2>&1; then
      log "dockerd ready (pid $(cat "$PIDFILE"))"
      echo "export DOCKER_HOST=unix://$SOCK"
      return
    fi
    sleep 0.5
  done
  tail -20 "$LOG" >&2 || true
  die "dockerd did not become ready within 60 s (see $LOG)"
}

cmd_down() {
  if ! ours_running; then
    log "no dockerd started by this script"
    return
  fi
  local pid
  pid=$(cat "$PIDFILE")
  kill "$pid"
  for _ in $(seq 1 60); do
    [[ -d /proc/$pid ]] || { log "stopped dockerd (pid $pid)"; return; }
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
  log "killed dockerd (pid $pid)"
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  env) echo "export DOCKER_HOST=unix://$SOCK" ;;
  env-if-ours) if ours_running; then echo "export DOCKER_HOST=unix://$SOCK"; fi ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
