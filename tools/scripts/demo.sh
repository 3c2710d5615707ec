#!/usr/bin/env bash
# The first README command: installs what is missing, brings Postgres, Redis and NATS up, starts
# the whole stack (with the scripted model server unless SWITCHYARD_LLM_BASE_URL is set) and
# runs a demo question whose events stream in the terminal, ending with the answer.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/prepare.sh
bash tools/scripts/stack.sh up
source deploy/local/env.sh
echo
node dist/tools/demo/src/main.js "${@:-what is 2+3*4?}"
echo
echo "The stack keeps running (logs in tmp/logs/). Ask again (from any shell, in $(pwd)): node dist/tools/demo/src/main.js \"what is 7*6?\""
echo "Stop it with: bash tools/scripts/stack.sh down"
echo
echo "Console: http://127.0.0.1:${GATEWAY_PORT}/console/ (sign in with the API key above); chat: /console/#/chat"
