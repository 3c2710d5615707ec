#!/usr/bin/env bash
# `nx serve <app>`: runs one built service against local Postgres, Redis and NATS
# (deploy/local/env.sh gives the defaults; any variable already set wins).
set -euo pipefail
cd "$(dirname "$0")/../.."
app="$1"
source deploy/local/env.sh
export LOG_FORMAT="${LOG_FORMAT:-pretty}"
exec node --enable-source-maps "dist/apps/${app}/src/main.js"
