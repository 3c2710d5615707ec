#!/usr/bin/env bash
# Starts (up) or stops (down) the whole Switchyard stack on this machine from dist/:
# the scripted model server (unless SWITCHYARD_LLM_BASE_URL points elsewhere) and the seven
# services, each a process of its own, logs in tmp/logs/, pids in tmp/pids/.
set -euo pipefail
cd "$(dirname "$0")/../.."
USER_LLM="${SWITCHYARD_LLM_BASE_URL:-}"
source deploy/local/env.sh
mkdir -p tmp/logs tmp/pids

APPS=(run-orchestrator planner tool-executor reflection retrieval output gateway)
port_of() {
  case "$1" in
    gateway) echo "$GATEWAY_PORT" ;; run-orchestrator) echo "$ORCHESTRATOR_PORT" ;; planner) echo "$PLANNER_PORT" ;;
    tool-executor) echo "$TOOL_EXECUTOR_PORT" ;; reflection) echo "$REFLECTION_PORT" ;; retrieval) echo "$RETRIEVAL_PORT" ;;
    output) echo "$OUTPUT_PORT" ;; scripted-llm) echo "$SCRIPTED_LLM_PORT" ;;
  esac
}

stop_one() {
  local f="tmp/pids/$1.pid"
  if [[ -f "$f" ]]; then
    local pid; pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  fi
}

wait_ready() {
  local name="$1" url="$2" deadline=$((SECONDS + 60))
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    if ! kill -0 "$(cat "tmp/pids/$name.pid")" 2>/dev/null; then
      echo "stack: $name exited during start-up; last log lines:" >&2
      tail -n 20 "tmp/logs/$name.log" >&2
      exit 1
    fi
    if (( SECONDS > deadline )); then
      echo "stack: $name not ready at $url after 60 s; see tmp/logs/$name.log" >&2
      exit 1
    fi
    sleep 0.3
  done
}

start_one() {
  local name="$1" main="$2"
  stop_one "$name"
  PORT="$(port_of "$name")" nohup node --enable-source-maps "$main" >"tmp/logs/$name.log" 2>&1 &
  echo $! >"tmp/pids/$name.pid"
}

case "${1:-up}" in
  up)
    if [[ -z "$USER_LLM" ]]; then
      export SCRIPTED_LLM_SCRIPT="${SCRIPTED_LLM_SCRIPT:-tools/scripted-llm/scripts/demo.json}"
      start_one scripted-llm dist/tools/scripted-llm/src/main.js
      wait_ready scripted-llm "http://127.0.0.1:$SCRIPTED_LLM_PORT/v1/models"
      echo "stack: scripted model server on :$SCRIPTED_LLM_PORT ($SCRIPTED_LLM_SCRIPT)"
    else
      echo "stack: using the model server at $SWITCHYARD_LLM_BASE_URL"
    fi
    # The orchestrator migrates the database; the others start once it is up.
    start_one run-orchestrator dist/apps/run-orchestrator/src/main.js
    wait_ready run-orchestrator "http://127.0.0.1:$ORCHESTRATOR_PORT/readyz"
    for app in "${APPS[@]:1}"; do start_one "$app" "dist/apps/$app/src/main.js"; done
    for app in "${APPS[@]:1}"; do wait_ready "$app" "http://127.0.0.1:$(port_of "$app")/readyz"; done
    echo "stack: ${APPS[*]} ready; gateway on http://127.0.0.1:$GATEWAY_PORT (logs in tmp/logs/)"
    ;;
  down)
    for app in gateway "${APPS[@]}" scripted-llm; do stop_one "$app"; done
    echo "stack: stopped"
    ;;
  *)
    echo "usage: stack.sh up|down" >&2
    exit 2
    ;;
esac
