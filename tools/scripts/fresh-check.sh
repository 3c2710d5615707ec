#!/usr/bin/env bash
# Checks the README's two commands the way a newcomer meets them, from a fresh clone of HEAD:
#
#   fresh-check.sh node               prepare.sh without Node.js, and with Node.js 18: it stops at
#                                     once and says how to get Node.js 20+ (nothing is installed)
#   fresh-check.sh ports  [--demo-only]
#                                     every port moved (PGPORT, REDIS_PORT, NATS_PORT, the service
#                                     ports, SCRIPTED_LLM_PORT) beside the stack that already runs
#                                     on the defaults: the demo, the follow-up question from a new
#                                     shell, then the whole test suite
#   fresh-check.sh offline [--demo-only]
#                                     zero variables, as root, in new network, mount and PID
#                                     namespaces (no route but loopback) with empty state
#                                     directories for Postgres, Redis and NATS, so infra.sh finds
#                                     nothing running and sets everything up itself; npm packages
#                                     are installed before the network is cut
#   fresh-check.sh root               a Debian 12 root made with debootstrap (git, curl and
#                                     certificates only), Node.js 22 from the npm registry as the
#                                     README says, then the demo with every port moved (the root
#                                     shares this machine's network, where the defaults are taken):
#                                     Postgres, Redis and NATS come from apt-get inside (~6 min)
#   fresh-check.sh image              the image built with dockerd from a locally made base
#                                     (tools/scripts/image-base.sh: no registry is needed), the
#                                     seven services run as containers (host network) with the
#                                     manifests' user, read-only root and emptyDir mounts
#                                     (deploy/k8s/base rendered), against a fresh database and a
#                                     fresh Redis and NATS, the scripted model server from the
#                                     image: a default-agent run and a graph-agent run with
#                                     CodeExec through the gateway (tools/scripts/image-runs.mjs);
#                                     prints the build time and image size (run before a
#                                     submission, not in CI: ~3-6 min; needs root and docker.io)
#
# Each mode exits non-zero with the failing step's output. Logs are kept in tmp/fresh-check/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODE="${1:-}"
DEMO_ONLY=0
[[ "${2:-}" == --demo-only ]] && DEMO_ONLY=1
LOGS="$ROOT/tmp/fresh-check"
mkdir -p "$LOGS"

say() { printf 'fresh-check(%s): %s\n' "$MODE" "$*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

fresh_clone() { # fresh_clone <dir>
  rm -rf "$1"
  git clone -q "$ROOT" "$1"
  # The check is of the committed tree: uncommitted work would otherwise go unnoticed.
  say "fresh clone of $(git -C "$1" rev-parse --short HEAD) in $1"
}

# The README's first command, then the follow-up question from a new shell (nothing sourced:
# only the variables the user set, given as arguments), then the stack stopped.
demo_and_follow_up() { # demo_and_follow_up <clone> <log-prefix> [VAR=value ...]
  local dir=$1 log=$2
  shift 2
  say "README command 1: bash tools/scripts/demo.sh"
  if ! (cd "$dir" && bash tools/scripts/demo.sh) >"$log-demo.log" 2>&1; then
    tail -n 40 "$log-demo.log" >&2
    fail "demo.sh (log: $log-demo.log)"
  fi
  grep -q '^answer: ' "$log-demo.log" || fail "demo.sh printed no answer (log: $log-demo.log)"
  say "demo answered: $(grep '^answer: ' "$log-demo.log" | head -1)"
  local ask
  ask=$(grep -o 'node dist/tools/demo/src/main.js "[^"]*"' "$log-demo.log" | tail -1)
  [[ -n "$ask" ]] || fail "demo.sh printed no follow-up command"
  say "follow-up, as printed, from a new shell: $ask"
  if ! (cd "$dir" && env -i HOME="$HOME" PATH="$PATH" "$@" bash --norc --noprofile -c "$ask") >"$log-ask.log" 2>&1; then
    tail -n 20 "$log-ask.log" >&2
    (cd "$dir" && bash tools/scripts/stack.sh down >/dev/null 2>&1) || true
    fail "the follow-up command (log: $log-ask.log)"
  fi
  grep -q '^answer: ' "$log-ask.log" || fail "the follow-up printed no answer (log: $log-ask.log)"
  say "follow-up answered: $(grep '^answer: ' "$log-ask.log" | head -1)"
  (cd "$dir" && bash tools/scripts/stack.sh down >/dev/null)
}

run_tests() { # run_tests <clone> <log-prefix>
  local dir=$1 log=$2
  say "README command 2: bash tools/scripts/test.sh"
  if ! (cd "$dir" && bash tools/scripts/test.sh) >"$log-test.log" 2>&1; then
    tail -n 60 "$log-test.log" >&2
    fail "test.sh (log: $log-test.log)"
  fi
  say "$(grep -E '^tests: ' "$log-test.log" | tail -1)"
}

# shellcheck source=image-check.sh
source "$ROOT/tools/scripts/image-check.sh"

case "$MODE" in
  node)
    dir=$(mktemp -d /tmp/sy-fresh-node.XXXX)
    fresh_clone "$dir"
    # A PATH with the usual tools but no node: a directory of links to everything but node/npm.
    bin="$dir/.nonode-bin"
    mkdir -p "$bin"
    for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
      for f in "$d"/*; do
        name=$(basename "$f")
        [[ "$name" == node || "$name" == npm || "$name" == npx || -e "$bin/$name" ]] || ln -s "$f" "$bin/$name"
      done
    done
    # prepare_refuses <case> <line it must print>: prepare.sh fails and says so; sets out and rc.
    prepare_refuses() {
      set +e
      out=$(cd "$dir" && PATH="$bin" bash tools/scripts/prepare.sh 2>&1)
      rc=$?
      set -e
      [[ $rc -ne 0 ]] || fail "prepare.sh $1 succeeded"
      grep -q "$2" <<<"$out" || fail "prepare.sh $1 said: $out"
    }
    prepare_refuses "without Node.js" 'Node.js 20 or newer is needed'
    grep -q 'npm install -g node@22' <<<"$out" || fail "prepare.sh gave no way to install Node.js: $out"
    say "without Node.js: stops at once (exit $rc) and says how to get Node.js 20+"
    # Node.js 18, as Debian 12 ships it.
    printf '#!/bin/sh\nif [ "$1" = -p ]; then echo 18; else echo v18.20.4; fi\n' >"$bin/node"
    chmod +x "$bin/node"
    prepare_refuses "with Node.js 18" 'found Node.js v18.20.4'
    [[ ! -d "$dir/node_modules" ]] || fail "prepare.sh installed npm packages before refusing Node.js 18"
    say "with Node.js 18: stops at once (exit $rc), nothing installed"
    rm -rf "$dir"
    ;;

  ports)
    # Beside whatever runs on the defaults: every port the stack uses, moved.
    export PGPORT=55432 REDIS_PORT=56379 NATS_PORT=54222 SCRIPTED_LLM_PORT=58090 \
      GATEWAY_PORT=58080 ORCHESTRATOR_PORT=58081 PLANNER_PORT=58082 TOOL_EXECUTOR_PORT=58083 \
      REFLECTION_PORT=58084 RETRIEVAL_PORT=58085 OUTPUT_PORT=58086
    vars=(PGPORT REDIS_PORT NATS_PORT SCRIPTED_LLM_PORT GATEWAY_PORT ORCHESTRATOR_PORT PLANNER_PORT
      TOOL_EXECUTOR_PORT REFLECTION_PORT RETRIEVAL_PORT OUTPUT_PORT)
    set_vars=()
    for v in "${vars[@]}"; do set_vars+=("$v=${!v}"); done
    dir=$(mktemp -d /tmp/sy-fresh-ports.XXXX)
    fresh_clone "$dir"
    say "ports: ${set_vars[*]}"
    demo_and_follow_up "$dir" "$LOGS/ports" "${set_vars[@]}"
    if [[ $DEMO_ONLY -eq 0 ]]; then run_tests "$dir" "$LOGS/ports"; fi
    rm -rf "$dir"
    ;;

  offline)
    [[ $(id -u) -eq 0 ]] || fail "needs root (network, mount and PID namespaces)"
    command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
    dir=$(mktemp -d /tmp/sy-fresh-offline.XXXX)
    fresh_clone "$dir"
    say "npm install before the network is cut"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >"$LOGS/offline-npm.log" 2>&1 &&
      touch node_modules/.switchyard-installed) || fail "npm install (log: $LOGS/offline-npm.log)"
    # Inside: loopback only, and the state of Postgres, Redis and NATS replaced by empty
    # directories, as on a machine where the packages are installed but nothing was ever set up.
    unshare --net --mount --pid --fork --mount-proc --propagation private \
      env FRESH_DIR="$dir" FRESH_DEMO_ONLY="$DEMO_ONLY" FRESH_ROOT="$ROOT" bash -c '
        set -euo pipefail
        ip link set lo up
        for d in /run /var/lib/postgresql /etc/postgresql /var/log/postgresql /var/lib/nats-server /var/lib/redis /var/log/redis /var/log/nats-server; do
          mkdir -p "$d"
          mount -t tmpfs -o mode=755 tmpfs "$d"
        done
        if id postgres >/dev/null 2>&1; then
          mkdir -p /run/postgresql
          chown postgres:postgres /var/lib/postgresql /var/log/postgresql /run/postgresql
          chmod 2775 /run/postgresql
        fi
        if ip route | grep -q .; then echo "offline: a route is left" >&2; exit 1; fi
        source "$FRESH_ROOT/tools/scripts/fresh-check.sh" __inside
      ' || fail "offline run"
    rm -rf "$dir"
    ;;

  root)
    [[ $(id -u) -eq 0 ]] || fail "needs root (debootstrap, chroot)"
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
    target=$(mktemp -d /tmp/sy-fresh-root.XXXX)
    chmod 755 "$target" # the root's / (mktemp makes it 0700: the postgres user could not enter)
    say "debootstrap bookworm into $target"
    debootstrap --variant=minbase --include=git,curl,ca-certificates bookworm "$target" \
      http://deb.debian.org/debian >"$LOGS/root-debootstrap.log" 2>&1 || fail "debootstrap (log: $LOGS/root-debootstrap.log)"
    # This machine's own CAs (a proxy in front of the registries), as the host trusts them.
    cp /usr/local/share/ca-certificates/*.crt "$target/usr/local/share/ca-certificates/" 2>/dev/null || true
    cp /etc/resolv.conf "$target/etc/resolv.conf"
    mkdir -p "$target/src"
    cat >"$target/root/check.sh" <<'INNER'
set -euo pipefail
update-ca-certificates >/dev/null 2>&1 || true
export DEBIAN_FRONTEND=noninteractive
echo "node before: $(command -v node || echo none)"
apt-get update -qq && apt-get install -y -qq npm >/dev/null
npm install -g node@22 --no-audit --no-fund --loglevel=error
hash -r
echo "node: $(node -v), npm: $(npm -v)"
git clone -q /src /root/switchyard && cd /root/switchyard
export PGPORT=45432 REDIS_PORT=46379 NATS_PORT=44222 SCRIPTED_LLM_PORT=48090 GATEWAY_PORT=48080 \
  ORCHESTRATOR_PORT=48081 PLANNER_PORT=48082 TOOL_EXECUTOR_PORT=48083 REFLECTION_PORT=48084 \
  RETRIEVAL_PORT=48085 OUTPUT_PORT=48086
bash tools/scripts/demo.sh
env -i HOME=/root PATH="$PATH" GATEWAY_PORT=$GATEWAY_PORT bash --norc --noprofile -c 'node dist/tools/demo/src/main.js "what is 7*6?"'
bash tools/scripts/stack.sh down
INNER
    # Its own mount and PID namespaces: everything started inside ends with it.
    unshare --mount --pid --fork --propagation private bash -c '
      mount -t proc proc "$1/proc"; mount --rbind /dev "$1/dev"; mount --rbind /sys "$1/sys"
      mount --bind "$2" "$1/src"
      chroot "$1" /bin/bash /root/check.sh' _ "$target" "$ROOT" >"$LOGS/root.log" 2>&1 ||
      { tail -n 40 "$LOGS/root.log" >&2; fail "the fresh root (log: $LOGS/root.log)"; }
    grep -E '^(node|postgres|redis|nats|answer):' "$LOGS/root.log" | while read -r l; do say "$l"; done
    [[ $(grep -c '^answer: ' "$LOGS/root.log") -eq 2 ]] || fail "the demo or the follow-up printed no answer (log: $LOGS/root.log)"
    rm -rf "$target"
    ;;

  image)
    [[ $(id -u) -eq 0 ]] || fail "needs root (debootstrap, dockerd)"
    image_check
    ;;

  __inside)
    # Sourced inside the namespaces by the offline mode: zero variables.
    MODE=offline
    demo_and_follow_up "$FRESH_DIR" "$LOGS/offline"
    if [[ "$FRESH_DEMO_ONLY" -eq 0 ]]; then run_tests "$FRESH_DIR" "$LOGS/offline"; fi
    return 0 2>/dev/null || exit 0
    ;;

  *)
    echo "usage: fresh-check.sh node | ports [--demo-only] | offline [--demo-only] | root | image" >&2
    exit 2
    ;;
esac
say "passed"
