#!/usr/bin/env bash
# Shared first steps of the demo and the tests on any Debian machine: Node.js (>= 20.19) checked, Postgres,
# Redis and NATS (JetStream) up, npm dependencies installed, the tree built into dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Node.js >= 20 is the one prerequisite the scripts do not install: Debian 12's own package is
# 18, too old, so installing it here would only fail later.
node_help() {
  cat >&2 <<'HELP'
prepare: Node.js 20 or newer is needed. Debian 12's own nodejs package is 18; install 20+ with one of:
  - NodeSource:  curl -fsSL https://deb.nodesource.com/setup_22.x | bash - && apt-get install -y nodejs
  - nodejs.org:  a binary tarball from https://nodejs.org/en/download, or nvm
  - the npm registry only:  apt-get install -y npm && npm install -g node@22   (then open a new shell)
HELP
}
if ! command -v node >/dev/null 2>&1; then
  echo "prepare: Node.js is not installed." >&2
  node_help
  exit 1
fi
# 20.19 or newer: it loads ESM-only packages with require() (the A2A SDK's jose).
node_ok=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 20 || (a === 20 && b >= 19)')
if [[ "$node_ok" != "true" ]]; then
  echo "prepare: found Node.js $(node -v) at $(command -v node)." >&2
  node_help
  exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "prepare: npm is missing beside Node.js $(node -v); install it (apt-get install -y npm, or with Node.js)." >&2
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
