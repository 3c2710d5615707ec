# shellcheck shell=bash
# Local dev/CI environment for Switchyard. Source it:  . deploy/local/env.sh
# Every variable keeps a value already set in the environment; the values below are only
# defaults for a single-box setup (see tools/scripts/infra.sh). Ports are set in one place: the
# URLs (DATABASE_URL, REDIS_URL, NATS_URL, SWITCHYARD_LLM_BASE_URL) are derived from the port
# variables unless they are set themselves.

# --- infrastructure -----------------------------------------------------------
: "${PGHOST:=127.0.0.1}"
: "${PGPORT:=5432}"
: "${PGUSER:=postgres}"
: "${REDIS_PORT:=6379}"
: "${NATS_PORT:=4222}"
# An IPv6 literal goes in brackets inside a URL.
_sy_pghost=$PGHOST
[[ $_sy_pghost == *:* && $_sy_pghost != \[* ]] && _sy_pghost="[$_sy_pghost]"
: "${DATABASE_URL:=postgres://${PGUSER}${PGPASSWORD:+:${PGPASSWORD}}@${_sy_pghost}:${PGPORT}/switchyard}"
unset _sy_pghost
: "${REDIS_URL:=redis://127.0.0.1:${REDIS_PORT}}"
: "${NATS_URL:=nats://127.0.0.1:${NATS_PORT}}"
# The tests' MariaDB (ExeSQL's and sql_query's MySQL path): a dev user infra.sh creates.
: "${MARIADB_PORT:=3306}"
: "${MARIADB_URL:=mysql://switchyard:switchyard@127.0.0.1:${MARIADB_PORT}}"
export PGHOST PGPORT PGUSER REDIS_PORT NATS_PORT DATABASE_URL REDIS_URL NATS_URL MARIADB_PORT MARIADB_URL

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

# --- auth / LLM (dev values only; the scripted LLM stands in for a real one) --
: "${SWITCHYARD_BOOTSTRAP_KEY:=sy_dev_bootstrap_key_change_me}"
: "${SWITCHYARD_LLM_BASE_URL:=http://127.0.0.1:${SCRIPTED_LLM_PORT}/v1}"
: "${SWITCHYARD_LLM_API_KEY:=scripted}"
: "${SWITCHYARD_LLM_MODEL:=scripted}"
: "${LOG_LEVEL:=info}"
export SWITCHYARD_BOOTSTRAP_KEY SWITCHYARD_LLM_BASE_URL SWITCHYARD_LLM_API_KEY SWITCHYARD_LLM_MODEL LOG_LEVEL
