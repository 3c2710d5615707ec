#!/usr/bin/env bash
# Shared first steps of the demo and the tests on any Debian machine: Node.js present, Postgres,
# Redis and NATS (JetStream) up, npm dependencies installed, the tree built into dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v node >/dev/null 2>&1; then
  echo "prepare: installing Node.js from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if (( node_major < 20 )); then
  echo "prepare: Node.js 20 or newer is needed (found $(node -v))" >&2
  exit 1
fi

bash tools/scripts/infra.sh

# `npm ci` cannot be used: the registry lacks some other-platform optional packages that npm
# leaves out of the lockfile; `npm install` with the committed lockfile leaves it unchanged.
stamp=node_modules/.switchyard-installed
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]]; then
  echo "prepare: npm install"
  npm install --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

node tools/scripts/build.mjs
