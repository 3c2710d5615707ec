# shellcheck shell=bash
# `fresh-check.sh image`, sourced by tools/scripts/fresh-check.sh (it uses say, fail, fresh_clone,
# ROOT and LOGS from there). From a fresh clone of HEAD: the base (tools/scripts/image-base.sh),
# the image (deploy/docker/Dockerfile), then the seven services as containers the way
# deploy/k8s/base runs them: each Deployment's user, read-only root file system and emptyDir
# mounts (as tmpfs), its own env and the ConfigMap's, on the host's network against a fresh
# Postgres database, a fresh Redis and a fresh NATS (JetStream) on free ports, and the scripted
# model server (from the same image). tools/scripts/image-runs.mjs then makes a default-agent run
# and a graph-agent run with CodeExec through the gateway. Everything started is removed at the
# end; the base image and the built image (switchyard:fresh-check, its build stage
# switchyard:fresh-check-build: the next run's cache) are kept, the ones they replace removed.
#
#   IMAGE_NO_CACHE=1        build without Docker's layer cache (a cold build's time)
#   IMAGE_EXTRA_TMPFS=/tmp  writable paths given to every read-only container beyond the
#                           manifests' emptyDirs (to try a layout before the manifests have it)

IMAGE_APPS=(run-orchestrator planner tool-executor reflection retrieval output gateway)
IMAGE_TAG=switchyard:fresh-check

# A port nothing listens on now (the kernel's pick).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# dockerd must answer; started here (no systemd) when it is installed but not running. It keeps
# running afterwards, its state under /var/lib/docker and its log in /var/log/switchyard-dockerd.log.
ensure_docker() {
  if ! command -v dockerd >/dev/null; then
    say "apt-get install docker.io"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >"$LOGS/image-apt.log" 2>&1 ||
      fail "apt-get install docker.io (log: $LOGS/image-apt.log)"
  fi
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  if ! docker info >/dev/null 2>&1; then
    say "starting dockerd --bridge=none --iptables=false (log: /var/log/switchyard-dockerd.log)"
    setsid dockerd --bridge=none --iptables=false >/var/log/switchyard-dockerd.log 2>&1 </dev/null &
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    docker info >/dev/null 2>&1 || { tail -n 20 /var/log/switchyard-dockerd.log >&2; fail "dockerd did not start"; }
  fi
}

# Per app, the `docker run` options that mirror its Deployment in the rendered base: one option a
# line in <dir>/<app>.args, and the ConfigMap's data (KEY=VALUE lines) in <dir>/config.env.
manifest_options() { # manifest_options <clone> <out dir>
  kubectl kustomize "$1/deploy/k8s/base" >"$2/rendered.yaml" 2>"$LOGS/image-kustomize.log" ||
    fail "kubectl kustomize deploy/k8s/base (log: $LOGS/image-kustomize.log)"
  python3 - "$2" "${IMAGE_EXTRA_TMPFS:-}" <<'PY' || fail "reading the rendered manifests"
import sys, yaml
out, extra = sys.argv[1], [p for p in sys.argv[2].split(',') if p]
docs = [d for d in yaml.safe_load_all(open(f"{out}/rendered.yaml")) if d]
# Set by the check for this machine (infrastructure, model, secrets, ports), not by the manifests.
local = {'DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'SWITCHYARD_LLM_BASE_URL', 'SWITCHYARD_LLM_MODEL',
         'SWITCHYARD_LLM_API_KEY', 'PORT', 'APP'}
for d in docs:
    if d['kind'] == 'ConfigMap' and d['metadata']['name'].startswith('switchyard-config'):
        with open(f"{out}/config.env", 'w') as f:
            for k, v in d['data'].items():
                if k not in local:
                    f.write(f"{k}={v}\n")
for d in docs:
    if d['kind'] != 'Deployment':
        continue
    pod = d['spec']['template']['spec']
    (c,) = pod['containers']
    env = {e['name']: e.get('value') for e in c.get('env', [])}
    app = env.get('APP')
    psc, csc = pod.get('securityContext') or {}, c.get('securityContext') or {}
    uid = csc.get('runAsUser', psc.get('runAsUser'))
    gid = csc.get('runAsGroup', psc.get('runAsGroup', psc.get('fsGroup', uid)))
    args = []
    if uid is not None:
        args.append(f"--user={uid}:{gid}")
    if psc.get('fsGroup') is not None:
        args.append(f"--group-add={psc['fsGroup']}")
    empty = {v['name']: v['emptyDir'] or {} for v in pod.get('volumes', []) if 'emptyDir' in v}
    paths = []
    for m in c.get('volumeMounts', []):
        if m['name'] in empty:
            size = empty[m['name']].get('sizeLimit')
            paths.append((m['mountPath'], size))
    if csc.get('readOnlyRootFilesystem'):
        args.append('--read-only')
        paths += [(p, None) for p in extra if p not in [q for q, _ in paths]]
    for p, size in paths:
        # An emptyDir is world-writable and allows exec; its sizeLimit as the tmpfs's size (Ki/Mi/Gi →
        # k/m/g), else 1 GB (Docker's own default for a tmpfs, 64 MB, is no emptyDir's).
        opts = 'rw,exec,mode=1777,size=' + (size.rstrip('i').lower() if size else '1g')
        args.append(f"--tmpfs={p}:{opts}")
    for k, v in env.items():
        if k not in local and v is not None:
            args.append(f"--env={k}={v}")
    with open(f"{out}/{app}.args", 'w') as f:
        f.write('\n'.join(args) + '\n')
    print(f"{app}: {' '.join(a for a in args if not a.startswith('--env'))}")
PY
}

image_check() {
  ensure_docker
  local dir work id base built_at build_s size_mb
  : >"$LOGS/image-build.log"
  dir=$(mktemp -d /tmp/sy-fresh-image.XXXX)
  fresh_clone "$dir"
  work=$(mktemp -d /tmp/sy-image-run.XXXX)
  IMAGE_WORK=$work
  id="syimg$$"
  # Everything this run starts goes at the end, whatever happens.
  IMAGE_CLEANUP=(docker rm -f)
  trap 'image_cleanup' EXIT

  say "base: tools/scripts/image-base.sh"
  base=$(bash "$dir/tools/scripts/image-base.sh" 2>"$LOGS/image-base.log") ||
    { tail -n 20 "$LOGS/image-base.log" >&2; fail "the base image (log: $LOGS/image-base.log)"; }
  say "base: $base"

  say "docker build -f deploy/docker/Dockerfile --build-arg NODE_IMAGE=$base -t $IMAGE_TAG"
  # The build stage is tagged too: its layers (npm ci) stay the cache of the next run, and the
  # images this replaces can be removed without touching it.
  local old_ids
  old_ids=$(docker image inspect -f '{{.Id}}' "$IMAGE_TAG" "$IMAGE_TAG-build" 2>/dev/null || true)
  built_at=$SECONDS
  for target in build ""; do
    DOCKER_BUILDKIT=0 docker build --network host ${IMAGE_NO_CACHE:+${target:+--no-cache}} -f "$dir/deploy/docker/Dockerfile" \
      --build-arg "NODE_IMAGE=$base" ${target:+--target "$target"} -t "$IMAGE_TAG${target:+-$target}" "$dir" \
      >>"$LOGS/image-build.log" 2>&1 ||
      { tail -n 30 "$LOGS/image-build.log" >&2; fail "docker build (log: $LOGS/image-build.log)"; }
  done
  build_s=$((SECONDS - built_at))
  for old in $old_ids; do # replaced: no tag left
    docker image inspect -f '{{.RepoTags}}' "$old" 2>/dev/null | grep -q '^\[\]$' && docker rmi "$old" >/dev/null 2>&1 || true
  done
  size_mb=$(($(docker image inspect -f '{{.Size}}' "$IMAGE_TAG") / 1000000))
  say "image built in ${build_s} s${IMAGE_NO_CACHE:+ (no cache)}, ${size_mb} MB"

  say "the manifests' user, read-only root and emptyDirs (deploy/k8s/base rendered):"
  manifest_options "$dir" "$work" >"$work/manifests.txt"
  while read -r l; do say "  $l"; done <"$work/manifests.txt"

  # Fresh infrastructure: a database of its own, Redis and NATS on free ports.
  local pg_host=${PGHOST:-127.0.0.1} pg_port=${PGPORT:-5432} pg_user=${PGUSER:-postgres}
  local db="switchyard_image_$$" redis_port nats_port llm_port
  psql -X -q -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -c "CREATE DATABASE $db" >/dev/null ||
    fail "creating database $db on $pg_host:$pg_port"
  IMAGE_DROP_DB="$db"
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >"$LOGS/image-redis.log" 2>&1 &
  IMAGE_PIDS=($!)
  nats_port=$(free_port)
  nats-server -js -a 127.0.0.1 -p "$nats_port" -sd "$work/jetstream" >"$LOGS/image-nats.log" 2>&1 &
  IMAGE_PIDS+=($!)
  say "infrastructure: database $db on $pg_host:$pg_port, Redis :$redis_port, NATS :$nats_port"

  # The environment every service gets (as the ConfigMap and Secret would give it), and the ports.
  local -A port
  local app env_file="$work/local.env" key
  key="sy_image_$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
  for app in "${IMAGE_APPS[@]}"; do port[$app]=$(free_port); done
  llm_port=$(free_port)
  cat "$work/config.env" >"$env_file"
  cat >>"$env_file" <<ENV
DATABASE_URL=postgres://$pg_user@$pg_host:$pg_port/$db
REDIS_URL=redis://127.0.0.1:$redis_port
NATS_URL=nats://127.0.0.1:$nats_port
SWITCHYARD_LLM_BASE_URL=http://127.0.0.1:$llm_port/v1
SWITCHYARD_LLM_MODEL=scripted
SWITCHYARD_LLM_API_KEY=scripted
SWITCHYARD_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
SWITCHYARD_ADMIN_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
SWITCHYARD_BOOTSTRAP_KEY=$key
GATEWAY_PORT=${port[gateway]}
ORCHESTRATOR_PORT=${port[run-orchestrator]}
PLANNER_PORT=${port[planner]}
TOOL_EXECUTOR_PORT=${port[tool-executor]}
REFLECTION_PORT=${port[reflection]}
RETRIEVAL_PORT=${port[retrieval]}
OUTPUT_PORT=${port[output]}
ENV

  # The scripted model server, from the image (the clone has no node_modules), read-only too.
  docker run -d --name "$id-scripted-llm" --network host --read-only --user 1000:1000 \
    -v "$dir/tools/scripted-llm/scripts/demo.json:/script.json:ro" \
    -e SCRIPTED_LLM_SCRIPT=/script.json -e SCRIPTED_LLM_PORT="$llm_port" \
    "$IMAGE_TAG" node dist/tools/scripted-llm/src/main.js >/dev/null || fail "starting the scripted model server"
  IMAGE_CLEANUP+=("$id-scripted-llm")
  image_wait_ready scripted-llm "http://127.0.0.1:$llm_port/v1/models" "$id-scripted-llm"

  # The orchestrator migrates the database; the others start once it is ready (as stack.sh does).
  # No PORT per container: each service takes its own <SERVICE>_PORT from the env file over the
  # image's PORT=8080, so the check also shows the names of deploy/local/env.sh work in the image.
  local started_at=$SECONDS
  for app in "${IMAGE_APPS[@]}"; do
    local opts=()
    mapfile -t opts <"$work/$app.args"
    docker run -d --name "$id-$app" --network host "${opts[@]}" --env-file "$env_file" \
      -e APP="$app" "$IMAGE_TAG" >/dev/null || fail "starting $app"
    IMAGE_CLEANUP+=("$id-$app")
    if [[ $app == run-orchestrator ]]; then
      image_wait_ready "$app" "http://127.0.0.1:${port[$app]}/readyz" "$id-$app"
    fi
  done
  for app in "${IMAGE_APPS[@]:1}"; do
    image_wait_ready "$app" "http://127.0.0.1:${port[$app]}/readyz" "$id-$app"
  done
  say "seven services ready in $((SECONDS - started_at)) s (gateway :${port[gateway]})"

  say "runs through the gateway: tools/scripts/image-runs.mjs"
  local rc=0
  GATEWAY_URL="http://127.0.0.1:${port[gateway]}" API_KEY="$key" node "$dir/tools/scripts/image-runs.mjs" "$dir" \
    >"$LOGS/image-runs.log" 2>&1 || rc=$?
  while read -r l; do say "  $l"; done <"$LOGS/image-runs.log"
  for app in "${IMAGE_APPS[@]}"; do docker logs "$id-$app" >"$LOGS/image-$app.log" 2>&1 || true; done
  if [[ $rc -ne 0 ]]; then
    grep -h -i -E '"level":(50|60)|EROFS|error' "$LOGS"/image-{planner,run-orchestrator}.log 2>/dev/null | tail -n 5 >&2 || true
    fail "the runs (logs: $LOGS/image-runs.log, $LOGS/image-<app>.log)"
  fi
  say "summary: image $IMAGE_TAG from $base: built in ${build_s} s, ${size_mb} MB; 7 services + scripted model as containers (--network host, the manifests' user/read-only/emptyDirs); default-agent run and graph-agent CodeExec run answered"
  rm -rf "$dir"
}

image_wait_ready() { # image_wait_ready <name> <url> <container>
  local deadline=$((SECONDS + 90))
  until curl -fsS -o /dev/null "$2" 2>/dev/null; do
    if [[ $(docker inspect -f '{{.State.Running}}' "$3" 2>/dev/null) != true ]]; then
      docker logs "$3" 2>&1 | tail -n 20 >&2
      fail "$1 exited during start-up ($(docker inspect -f 'exit {{.State.ExitCode}}' "$3" 2>/dev/null))"
    fi
    if ((SECONDS > deadline)); then
      docker logs "$3" 2>&1 | tail -n 20 >&2
      fail "$1 not ready at $2 after 90 s"
    fi
    sleep 0.5
  done
}

image_cleanup() {
  if [[ ${#IMAGE_CLEANUP[@]} -gt 3 ]]; then "${IMAGE_CLEANUP[@]}" >/dev/null 2>&1 || true; fi
  for pid in "${IMAGE_PIDS[@]:-}"; do [[ -n $pid ]] && kill "$pid" 2>/dev/null || true; done
  if [[ -n ${IMAGE_DROP_DB:-} ]]; then
    psql -X -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}" -d postgres \
      -c "DROP DATABASE IF EXISTS $IMAGE_DROP_DB WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  if [[ -n ${IMAGE_WORK:-} ]]; then rm -rf "$IMAGE_WORK"; fi
}
