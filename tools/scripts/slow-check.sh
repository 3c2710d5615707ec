#!/usr/bin/env bash
# The slow checks, run before a submission rather than in CI (which must stay within its time on
# a 2-core machine): the `*.slow-spec.ts` specs (the services against a three-node JetStream
# cluster, nodes and stream leaders killed under load). Starts what they need as test.sh does.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false TZ=UTC
bash tools/scripts/prepare.sh
source deploy/local/env.sh
mkdir -p tmp
npx jest -c jest.slow.config.js --runInBand --forceExit "$@"
