#!/usr/bin/env bash
# The second README command: everything CI checks. Installs and starts what the tests need,
# builds, type-checks, lints, then runs the unit tests and the end-to-end tests (real Postgres,
# Redis, NATS JetStream and MariaDB; every service a real process).
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false TZ=UTC
bash tools/scripts/prepare.sh
# The tests reach Postgres and Redis where the scripts put them (PGPORT, REDIS_PORT, … move them).
source deploy/local/env.sh
# And a MariaDB for the MySQL path of ExeSQL and sql_query (tests only: the demo does not need it).
bash tools/scripts/infra.sh mariadb

# The console's browser test drives Debian's Chromium (Playwright cannot download browsers here).
if [[ -z "${CHROMIUM_PATH:-}" ]] && ! command -v chromium >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian's chromium (the console's browser test)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "test: the console's browser test needs Chromium: apt-get install chromium (as root), or set CHROMIUM_PATH" >&2
  fi
fi

echo "== typecheck"
npm run --silent typecheck
echo "== lint"
npx eslint apps libs tools --max-warnings 0
echo "== format"
npx prettier --check "apps/**/*.ts" "apps/**/*.tsx" "libs/**/*.ts" "tools/**/*.ts" --log-level warn

mkdir -p tmp
rm -f tmp/jest-*.json
status=0
# Two jest workers: every e2e spec brings its own scratch database, NATS and Redis on free ports,
# so specs can run side by side; on 2 cores this takes the e2e suite from ~13 to ~9 minutes.
workers=${JEST_WORKERS:-2}
# Two e2e stacks at once may hold up to ~160 Postgres connections: with a server that allows
# fewer (Debian's default is 100; clusters infra.sh creates allow 300) the e2e specs run one by one.
e2e_workers=${JEST_E2E_WORKERS:-$workers}
pg_max_conn() {
  psql -X -w -q -At -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}" -d postgres \
    -c 'SHOW max_connections' 2>/dev/null || echo 0
}
max_conn=$(pg_max_conn)
# In CI (root, the machine's own local cluster): a server that allows fewer is raised to 300 and
# restarted, so the e2e specs run two at a time and CI stays within its time; a developer's server
# is left alone (set JEST_E2E_WORKERS, or raise it yourself).
if [[ -z "${JEST_E2E_WORKERS:-}" && "$max_conn" -gt 0 && "$max_conn" -lt 250 && "${CI:-}" == true &&
  "$(id -u)" -eq 0 ]] && command -v pg_lsclusters >/dev/null 2>&1; then
  read -r pg_ver pg_name < <(pg_lsclusters -h 2>/dev/null | awk -v p="${PGPORT:-5432}" '$3 == p { print $1, $2; exit }') || true
  if [[ -n "${pg_ver:-}" ]]; then
    echo "Postgres allows $max_conn connections: raising cluster $pg_ver/$pg_name to 300 (restart)"
    psql -X -w -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}" -d postgres \
      -c 'ALTER SYSTEM SET max_connections = 300' >/dev/null &&
      pg_ctlcluster --skip-systemctl-redirect "$pg_ver" "$pg_name" restart >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do
      max_conn=$(pg_max_conn)
      [[ "$max_conn" -gt 0 ]] && break
      sleep 0.5
    done
  fi
fi
if [[ -z "${JEST_E2E_WORKERS:-}" && "$max_conn" -lt 250 ]]; then
  echo "Postgres allows $max_conn connections: end-to-end specs run one at a time"
  e2e_workers=1
fi
echo "== unit tests"
npx jest -c jest.unit.config.js --maxWorkers="$workers" --json --outputFile=tmp/jest-unit.json || status=1
echo "== end-to-end tests"
# The specs that drive a real browser run one at a time, after the others: two Chromiums beside two
# stacks on 2 cores made their page waits time out now and then (a different one each time).
mapfile -t browser_specs < <(grep -l "from 'playwright-core'" apps/*/test/*.e2e-spec.ts tools/*/test/*.e2e-spec.ts 2>/dev/null)
ignore=()
for f in "${browser_specs[@]}"; do ignore+=(--testPathIgnorePatterns "/${f}\$"); done
npx jest -c jest.e2e.config.js --maxWorkers="$e2e_workers" --forceExit --json --outputFile=tmp/jest-e2e.json \
  "${ignore[@]}" || status=1
if ((${#browser_specs[@]})); then
  echo "== end-to-end tests in a browser, one at a time"
  npx jest -c jest.e2e.config.js --runInBand --forceExit --json --outputFile=tmp/jest-e2e-browser.json \
    "${browser_specs[@]}" || status=1
fi

node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  const browser = process.argv[1] === "1";
  for (const f of ["tmp/jest-unit.json", "tmp/jest-e2e.json", ...(browser ? ["tmp/jest-e2e-browser.json"] : [])]) {
    if (!fs.existsSync(f)) { failed++; continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
  }
  process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
' "$((${#browser_specs[@]} > 0))"
exit $status
