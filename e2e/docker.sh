#!/usr/bin/env bash
# A Docker engine for the image builds and kind, started by the project itself when none runs.
#
#   e2e/docker.sh up     use a reachable daemon, else install Debian's docker.io if dockerd is missing
#                        and start dockerd as root with its own data root, socket and pid file under
#                        $SYNCGC_CACHE/docker; the last line is `export DOCKER_HOST=...`
#   e2e/docker.sh down   stop the dockerd that `up` started (by pid file, checked against its command
#                        line); a daemon it did not start is left alone
#   e2e/docker.sh env    print `export DOCKER_HOST=...` for the daemon `up` started
#
# Environment: SYNCGC_CACHE (default ~/.cache/syncgc), SYNCGC_DOCKER_ROOT (default $SYNCGC_CACHE/docker)
set -euo pipefail

CACHE=${SYNCGC_CACHE:-$HOME/.cache/syncgc}
ROOT=${SYNCGC_DOCKER_ROOT:-$CACHE/docker}
SOCK=$ROOT/docker.sock
PIDFILE=$ROOT/dockerd.pid
LOG=$ROOT/dockerd.log

log() { printf '[docker] %s\n' "$*" >&2; }
die() { printf '[docker] error: %s\n' "$*" >&2; exit 1; }

ours_running() {
  [[ -f $PIDFILE ]] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$SOCK"
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
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null; } \
      || die "cannot install docker.io with apt-get"
  fi
  [[ $(id -u) == 0 ]] || die "starting dockerd needs root (or start Docker yourself and set DOCKER_HOST)"
  mkdir -p "$ROOT/data" "$ROOT/exec"
  log "starting dockerd (data root $ROOT/data, log $LOG)"
  nohup dockerd --data-root "$ROOT/data" --exec-root "$ROOT/exec" --pidfile "$PIDFILE" -H "unix://$SOCK" \
    >"$LOG" 2>&1 &
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
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
