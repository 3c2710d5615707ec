# shellcheck shell=bash
# Local dev/CI environment for Switchyard. Source it:  . deploy/local/env.sh
# Every variable keeps a value already set in the environment; the values below
# are only defaults for a single-box setup (see tools/scripts/infra.sh).

# --- infrastructure -----------------------------------------------------------
: "${DATABASE_URL:=postgres://postgres@127.0.0.1:5432/switchyard}"
: "${REDIS_URL:=redis://127.0.0.1:6379}"
: "${NATS_URL:=nats://127.0.0.1:4222}"
export DATABASE_URL REDIS_URL NATS_URL

# --- auth / LLM (dev values only; the scripted LLM stands in for a real one) --
: "${SWITCHYARD_BOOTSTRAP_KEY:=sy_dev_bootstrap_key_change_me}"
: "${SWITCHYARD_LLM_BASE_URL:=http://127.0.0.1:8090/v1}"
: "${SWITCHYARD_LLM_API_KEY:=scripted}"
: "${SWITCHYARD_LLM_MODEL:=scripted}"
: "${LOG_LEVEL:=info}"
export SWITCHYARD_BOOTSTRAP_KEY SWITCHYARD_LLM_BASE_URL SWITCHYARD_LLM_API_KEY SWITCHYARD_LLM_MODEL LOG_LEVEL

# --- service ports ------------------------------------------------------------
: "${GATEWAY_PORT:=8080}"
: "${ORCHESTRATOR_PORT:=8081}"
: "${PLANNER_PORT:=8082}"
: "${TOOL_EXECUTOR_PORT:=8083}"
: "${REFLECTION_PORT:=8084}"
: "${RETRIEVAL_PORT:=8085}"
: "${OUTPUT_PORT:=8086}"
: "${SCRIPTED_LLM_PORT:=8090}"
export GATEWAY_PORT ORCHESTRATOR_PORT PLANNER_PORT TOOL_EXECUTOR_PORT REFLECTION_PORT RETRIEVAL_PORT OUTPUT_PORT SCRIPTED_LLM_PORT
