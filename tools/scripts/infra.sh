#!/usr/bin/env bash
# tools/scripts/infra.sh — make Postgres, Redis and NATS (JetStream) reachable for
# Switchyard on a local dev/CI box (Debian 12, run as root, no TTY, no systemd needed).
#
#   PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres      (PGPASSWORD etc. are honoured)
#   REDIS_PORT=6379 (or REDIS_URL), NATS_PORT=4222 (or NATS_URL)   — see deploy/local/env.sh
#   INFRA_WAIT_SECS=30                                 (per-service start timeout)
#
# Idempotent: a service that already answers is left alone. Otherwise (local hosts
# only) the missing Debian packages are installed (one apt-get update) and the service
# is started without systemd: Postgres from the cluster that owns PGPORT, or a cluster
# made for it; Redis and NATS as extra instances when their port is not the default. Finally the databases switchyard and switchyard_test are
# created if missing. Prints one line per service.
#
# DEV/CI ONLY: on a fresh PostgreSQL install the script adds "trust" for loopback TCP
# (127.0.0.1/32, ::1/128) to pg_hba.conf so that `psql -h 127.0.0.1 -U postgres` works
# without a password. Never run this on a production host.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The ports and URLs (PGHOST/PGPORT/PGUSER, REDIS_URL, NATS_URL) come from the one place that sets them.
# shellcheck source=../../deploy/local/env.sh
. "$ROOT/deploy/local/env.sh"
: "${INFRA_WAIT_SECS:=30}"
export DEBIAN_FRONTEND=noninteractive

DATABASES=(switchyard switchyard_test)
NATS_CONF="$ROOT/deploy/local/nats.conf"
NATS_BIN=/usr/sbin/nats-server

# ---------------------------------------------------------------------------- helpers
die() { printf 'infra.sh: %s\n' "$*" >&2; exit 1; }

is_local_host() {
  case "$1" in
    "" | localhost | 127.* | ::1 | /*) return 0 ;; # /* = unix socket dir (PGHOST)
    *) return 1 ;;
  esac
}

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    die "$1: not reachable and must be installed/started — run this script as root"
  fi
}

APT_UPDATED=0
apt_install() { # apt_install <service> <package>...
  local svc=$1
  shift
  need_root "$svc"
  command -v apt-get >/dev/null 2>&1 || die "$svc: apt-get not found; install $* manually"
  if [ "$APT_UPDATED" -eq 0 ]; then
    apt-get update -qq >&2 || die "$svc: apt-get update failed"
    APT_UPDATED=1
  fi
  apt-get install -y -qq --no-install-recommends "$@" >&2 || die "$svc: apt-get install -y --no-install-recommends $* failed"
}

# wait_until <command...>: retry once a second for INFRA_WAIT_SECS seconds.
wait_until() {
  local deadline=$((SECONDS + INFRA_WAIT_SECS))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then return 1; fi
    sleep 1
  done
}

tcp_open() { # tcp_open <host> <port>
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" >/dev/null 2>&1
}

# parse_url <url> <default-port>: sets URL_HOST and URL_PORT (first server of a list).
parse_url() {
  local rest=${1#*://}
  rest=${rest%%,*}
  rest=${rest%%/*}
  rest=${rest##*@}
  if [[ $rest == \[* ]]; then # [ipv6]:port
    URL_HOST=${rest#\[}
    URL_HOST=${URL_HOST%%]*}
    URL_PORT=${rest##*]}
    URL_PORT=${URL_PORT#:}
  else
    URL_HOST=${rest%%:*}
    URL_PORT=""
    if [[ $rest == *:* ]]; then URL_PORT=${rest##*:}; fi
  fi
  URL_PORT=${URL_PORT:-$2}
  URL_HOST=${URL_HOST:-127.0.0.1}
  [[ $URL_PORT =~ ^[0-9]+$ ]] || die "cannot parse a port from URL '$1'"
}

# --------------------------------------------------------------------------- postgres
PSQL=(psql -X -w -q -At -h "$PGHOST" -p "$PGPORT" -U "$PGUSER")

pg_ok() { "${PSQL[@]}" -d postgres -c 'select 1' >/dev/null 2>&1; }
pg_accepting() { pg_isready -q -h "$PGHOST" -p "$PGPORT" -t 2 >/dev/null 2>&1; }

# Dev/CI only: trust loopback TCP so `psql -h 127.0.0.1 -U postgres` needs no password.
pg_trust_loopback() { # pg_trust_loopback <version> <cluster>
  local hba="/etc/postgresql/$1/$2/pg_hba.conf" marker="# switchyard infra.sh: trust loopback TCP"
  [ -f "$hba" ] || return 1
  if grep -qF "$marker" "$hba"; then return 1; fi
  local tmp
  tmp=$(mktemp)
  {
    echo "$marker (local dev/CI box only — never production)"
    echo "host    all    all    127.0.0.1/32    trust"
    echo "host    all    all    ::1/128         trust"
    echo
    cat "$hba"
  } >"$tmp"
  cat "$tmp" >"$hba" # keep owner/mode of pg_hba.conf
  rm -f "$tmp"
  pg_ctlcluster --skip-systemctl-redirect "$1" "$2" reload >&2 ||
    die "postgres: reloading cluster $1/$2 after editing $hba failed"
  return 0
}

ensure_postgres() {
  local installed=0 started=0 created=0 hba_changed=0 local_host=0
  if is_local_host "$PGHOST"; then local_host=1; fi

  if ! command -v psql >/dev/null 2>&1 || ! command -v pg_isready >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then
      apt_install postgres postgresql
      installed=1
    else
      apt_install postgres postgresql-client
    fi
  fi

  if pg_ok; then
    PG_STATUS="already running on port $PGPORT"
    return
  fi
  [ "$local_host" -eq 1 ] ||
    die "postgres: cannot connect to $PGHOST:$PGPORT as $PGUSER (remote host, not starting it)"
  need_root postgres

  if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
    apt_install postgres postgresql
    installed=1
  fi

  # The cluster that owns PGPORT (any version or name) is used; when there is none, one is made on
  # that port: "main" if the newest version has none yet, else "switchyard-<port>" (the postgresql
  # package makes its own main cluster on 5432, so a moved port gets a cluster of its own).
  local ver name status
  read -r ver name status < <(pg_lsclusters -h 2>/dev/null | awk -v p="$PGPORT" '$3 == p { print $1, $2, $4; exit }') || true
  if [ -z "${ver:-}" ]; then
    ver=$(ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+(\.[0-9]+)?$' | sort -V | tail -1 || true)
    [ -n "$ver" ] || die "postgres: no PostgreSQL server version found under /usr/lib/postgresql"
    name=main
    if [ -e "/etc/postgresql/$ver/main" ]; then name="switchyard-$PGPORT"; fi
    # 300 connections: the stack's services pool up to 80, and the test suite runs two stacks side by side.
    pg_createcluster --port "$PGPORT" "$ver" "$name" >&2 || die "postgres: pg_createcluster --port $PGPORT $ver $name failed"
    mkdir -p "/etc/postgresql/$ver/$name/conf.d" && echo "max_connections = 300" >"/etc/postgresql/$ver/$name/conf.d/switchyard.conf"
    created=1
    status=down
  fi
  local logf="/var/log/postgresql/postgresql-$ver-$name.log"

  if [ "$status" != online ]; then
    pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start >&2 ||
      die "postgres: 'pg_ctlcluster $ver $name start' failed (see $logf)"
    started=1
  fi
  wait_until pg_accepting ||
    die "postgres: cluster $ver/$name owns port $PGPORT but $PGHOST:$PGPORT accepts no connections after ${INFRA_WAIT_SECS}s (running in another network namespace? see $logf)"

  if ! pg_ok; then
    if pg_trust_loopback "$ver" "$name"; then hba_changed=1; fi
    wait_until pg_ok ||
      die "postgres: server is up on $PGHOST:$PGPORT but 'select 1' as $PGUSER fails (check role/password/pg_hba.conf)"
  fi

  if [ "$installed" -eq 1 ]; then
    PG_STATUS="installed and started"
  elif [ "$created" -eq 1 ]; then
    PG_STATUS="cluster $ver/$name created and started"
  elif [ "$started" -eq 1 ]; then
    PG_STATUS="started"
  else
    PG_STATUS="already running"
  fi
  PG_STATUS+=" on port $PGPORT"
  if [ "$hba_changed" -eq 1 ]; then PG_STATUS+=" (pg_hba.conf: trust on loopback)"; fi
}

ensure_databases() {
  local db created=()
  for db in "${DATABASES[@]}"; do
    if [ "$("${PSQL[@]}" -d postgres -c "select 1 from pg_database where datname = '$db'")" = 1 ]; then
      continue
    fi
    if ! "${PSQL[@]}" -d postgres -v ON_ERROR_STOP=1 -c "create database \"$db\"" >/dev/null; then
      # tolerate a concurrent run having created it meanwhile
      [ "$("${PSQL[@]}" -d postgres -c "select 1 from pg_database where datname = '$db'")" = 1 ] ||
        die "postgres: could not create database $db as $PGUSER"
    fi
    created+=("$db")
  done
  if [ "${#created[@]}" -gt 0 ]; then
    local IFS=,
    PG_STATUS+=" (created database(s): ${created[*]})"
  fi
}

# ------------------------------------------------------------------------------ redis
redis_ok() {
  local out
  out=$(timeout 5 redis-cli --no-auth-warning -u "$REDIS_URL" ping 2>/dev/null) || return 1
  [ "$out" = PONG ]
}

ensure_redis() {
  parse_url "$REDIS_URL" 6379
  local host=$URL_HOST port=$URL_PORT installed=0 local_host=0
  if is_local_host "$host"; then local_host=1; fi

  if ! command -v redis-cli >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then
      apt_install redis redis-server
      installed=1
    else
      apt_install redis redis-tools
    fi
  fi

  if redis_ok; then
    if [ "$installed" -eq 1 ]; then REDIS_STATUS="installed and started"; else REDIS_STATUS="already running"; fi
    return # (the package's init script may have started it)
  fi
  [ "$local_host" -eq 1 ] || die "redis: no PONG from $host:$port (remote host, not starting it)"
  need_root redis
  if tcp_open "$host" "$port"; then
    die "redis: something listens on $host:$port but does not answer PING (wrong password in REDIS_URL, or not Redis?)"
  fi

  if ! command -v redis-server >/dev/null 2>&1; then
    apt_install redis redis-server
    installed=1
    if redis_ok; then
      REDIS_STATUS="installed and started"
      return
    fi
  fi

  local log=/var/log/redis/ci.log
  if [ "$port" != 6379 ]; then log="/var/log/redis/ci-$port.log"; fi
  mkdir -p /var/lib/redis /var/log/redis
  local args=(--daemonize yes --bind 127.0.0.1 -::1 --port "$port" --save "" --appendonly no
    --dir /var/lib/redis --logfile "$log" --pidfile "/run/redis-ci-$port.pid")
  # a password in REDIS_URL (redis://:secret@host:port) becomes requirepass
  local userinfo=${REDIS_URL#*://}
  userinfo=${userinfo%%/*}
  if [[ $userinfo == *@* ]]; then
    userinfo=${userinfo%@*}
    if [[ $userinfo == *:* ]] && [ -n "${userinfo#*:}" ]; then args+=(--requirepass "${userinfo#*:}"); fi
  fi
  redis-server "${args[@]}" >&2 || die "redis: redis-server failed to start (see $log)"
  wait_until redis_ok || die "redis: no PONG from $host:$port after ${INFRA_WAIT_SECS}s (see $log)"
  if [ "$installed" -eq 1 ]; then REDIS_STATUS="installed and started"; else REDIS_STATUS="started"; fi
}

# ------------------------------------------------------------------------------- nats
# Connects with the repo's `nats` package and asks JetStream for account info.
# exit 0 = JetStream OK, 1 = cannot connect, 3 = connected but JetStream not enabled.
NATS_JS_CHECK='
const { connect } = require("nats");
(async () => {
  let nc;
  try {
    nc = await connect({ servers: process.env.NATS_URL.split(","), timeout: 2000, reconnect: false });
  } catch (e) { console.error(String(e && e.message)); process.exit(1); }
  try {
    const jsm = await nc.jetstreamManager({ timeout: 2000 });
    await jsm.getAccountInfo();
  } catch (e) { console.error(String(e && e.message)); await nc.close().catch(() => {}); process.exit(3); }
  await nc.close();
  process.exit(0);
})();'

NATS_CHECK_MODE=jetstream
nats_check() {
  if command -v node >/dev/null 2>&1 && [ -d "$ROOT/node_modules/nats" ]; then
    NATS_CHECK_MODE=jetstream
    local rc=0
    (cd "$ROOT" && timeout 15 node -e "$NATS_JS_CHECK" >/dev/null 2>&1) || rc=$?
    case "$rc" in 0) return 0 ;; 3) return 3 ;; *) return 1 ;; esac
  fi
  NATS_CHECK_MODE=tcp # no node/node_modules: best effort, port is open
  parse_url "$NATS_URL" 4222
  tcp_open "$URL_HOST" "$URL_PORT"
}
nats_ok() { nats_check; }

ensure_nats() {
  parse_url "$NATS_URL" 4222
  local host=$URL_HOST port=$URL_PORT installed=0 rc=0
  nats_check || rc=$?
  if [ "$rc" -eq 0 ]; then
    NATS_STATUS="already running"
    if [ "$NATS_CHECK_MODE" = tcp ]; then NATS_STATUS+=" (TCP check only: node_modules/nats missing, JetStream not verified)"; fi
    return
  fi
  is_local_host "$host" || die "nats: cannot reach JetStream at $host:$port (remote host, not starting it)"
  need_root nats

  if [ ! -x "$NATS_BIN" ]; then
    apt_install nats nats-server
    installed=1
    # On a systemd box the packaged unit starts nats-server from /etc/nats-server.conf,
    # without JetStream, on 4222. Replace it with our JetStream-enabled instance.
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nats-server 2>/dev/null; then
      systemctl disable --now nats-server >/dev/null 2>&1 || true
      sleep 1
    fi
    rc=0
    nats_check || rc=$?
  fi
  if [ "$rc" -eq 3 ]; then
    die "nats: $host:$port answers but JetStream is not enabled — stop that server (or set NATS_URL to another port) and re-run"
  fi
  if [ "$NATS_CHECK_MODE" = jetstream ] && tcp_open "$host" "$port"; then
    die "nats: something listens on $host:$port but is not a usable NATS server"
  fi
  [ -f "$NATS_CONF" ] || die "nats: $NATS_CONF is missing"

  local conf=$NATS_CONF store log=/var/log/nats-server/ci.log pidfile="/run/switchyard-nats-$port.pid"
  store=$(sed -n 's/^[[:space:]]*store_dir:[[:space:]]*"\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' "$NATS_CONF" | head -1)
  store=${store:-/var/lib/nats-server}
  if [ "$port" != 4222 ]; then
    # Extra instance on another port: private copy of the config with its own port and
    # store dir, and no monitoring listener (8222 belongs to the default instance).
    store="/var/lib/nats-server-$port"
    log="/var/log/nats-server/ci-$port.log"
    conf="/run/switchyard/nats-$port.conf"
    mkdir -p /run/switchyard
    sed -e "s#^listen:.*#listen: 127.0.0.1:$port#" -e '/^http:/d' \
      -e "s#^\([[:space:]]*store_dir:\).*#\1 \"$store\"#" "$NATS_CONF" >"$conf"
  fi
  mkdir -p "$store" /var/log/nats-server
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "$pidfile" \
    --exec "$NATS_BIN" -- -c "$conf" -l "$log" >&2 ||
    die "nats: start-stop-daemon failed to start $NATS_BIN (see $log)"
  wait_until nats_ok ||
    die "nats: JetStream not reachable at $host:$port after ${INFRA_WAIT_SECS}s (see $log)"
  if [ "$installed" -eq 1 ]; then NATS_STATUS="installed and started"; else NATS_STATUS="started"; fi
}

# ---------------------------------------------------------------------------- mariadb
# Only for the tests (`infra.sh mariadb`): ExeSQL's and sql_query's MySQL path run against a
# real MariaDB. MARIADB_URL names a dev user with every privilege (it makes scratch databases),
# created here through root's local socket when missing.
MARIADB_SOCK=/run/mysqld/mysqld.sock
mariadb_ok() {
  mariadb --protocol=tcp -h "$URL_HOST" -P "$URL_PORT" -u "$MY_USER" ${MY_PASS:+-p"$MY_PASS"} \
    -e 'select 1' >/dev/null 2>&1
}

ensure_mariadb() {
  parse_url "$MARIADB_URL" 3306
  local userinfo=${MARIADB_URL#*://}
  userinfo=${userinfo%%@*}
  MY_USER=${userinfo%%:*}
  MY_PASS=""
  if [[ $userinfo == *:* ]]; then MY_PASS=${userinfo#*:}; fi
  local installed=0 local_host=0
  if is_local_host "$URL_HOST"; then local_host=1; fi
  if ! command -v mariadb >/dev/null 2>&1; then
    if [ "$local_host" -eq 1 ]; then
      apt_install mariadb mariadb-server
    else
      apt_install mariadb mariadb-client
    fi
    installed=1
  fi
  if mariadb_ok; then
    MARIADB_STATUS="already running"
    return
  fi
  [ "$local_host" -eq 1 ] || die "mariadb: cannot log in as $MY_USER at $URL_HOST:$URL_PORT (remote host, not starting it)"
  need_root mariadb
  if ! command -v mariadbd >/dev/null 2>&1; then
    apt_install mariadb mariadb-server
    installed=1
  fi
  if ! tcp_open "$URL_HOST" "$URL_PORT"; then
    mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
    # The packaged server on its own port; an instance of our own on a moved port, or when the
    # packaged one runs elsewhere (another network namespace holds its socket).
    if [ "$URL_PORT" = 3306 ] && [ -x /etc/init.d/mariadb ]; then
      /etc/init.d/mariadb start >&2 || true
      INFRA_WAIT_SECS=10 wait_until tcp_open "$URL_HOST" "$URL_PORT" || true
    fi
    if ! tcp_open "$URL_HOST" "$URL_PORT"; then
      local datadir="/var/lib/mysql-ci-$URL_PORT"
      MARIADB_SOCK="/run/mysqld/mysqld-ci-$URL_PORT.sock"
      if [ ! -d "$datadir/mysql" ]; then
        mariadb-install-db --user=mysql --datadir="$datadir" >/dev/null 2>&1 ||
          die "mariadb: mariadb-install-db --datadir=$datadir failed"
      fi
      start-stop-daemon --start --oknodo --background --make-pidfile \
        --pidfile "/run/mysqld/mysqld-ci-$URL_PORT.pid" --exec "$(command -v mariadbd)" -- \
        --user=mysql --datadir="$datadir" --port="$URL_PORT" --bind-address=127.0.0.1 \
        --socket="$MARIADB_SOCK" --pid-file="/run/mysqld/mariadbd-ci-$URL_PORT.pid" \
        --log-error="/var/log/mysql-ci-$URL_PORT.log" >&2 || die "mariadb: mariadbd failed to start"
      wait_until tcp_open "$URL_HOST" "$URL_PORT" ||
        die "mariadb: $URL_HOST:$URL_PORT not open after ${INFRA_WAIT_SECS}s (see /var/log/mysql-ci-$URL_PORT.log)"
    fi
  fi
  local sql="CREATE USER IF NOT EXISTS '$MY_USER'@'127.0.0.1' IDENTIFIED BY '$MY_PASS';
    CREATE USER IF NOT EXISTS '$MY_USER'@'localhost' IDENTIFIED BY '$MY_PASS';
    GRANT ALL PRIVILEGES ON *.* TO '$MY_USER'@'127.0.0.1'; GRANT ALL PRIVILEGES ON *.* TO '$MY_USER'@'localhost';"
  # root over its local socket (Debian's unix_socket authentication), else root over TCP.
  mariadb -uroot --socket="$MARIADB_SOCK" -e "$sql" >/dev/null 2>&1 ||
    mariadb --protocol=tcp -h "$URL_HOST" -P "$URL_PORT" -uroot -e "$sql" >/dev/null 2>&1 ||
    die "mariadb: cannot create the user $MY_USER as root (socket $MARIADB_SOCK or TCP without a password)"
  wait_until mariadb_ok || die "mariadb: cannot log in as $MY_USER at $URL_HOST:$URL_PORT"
  if [ "$installed" -eq 1 ]; then MARIADB_STATUS="installed and started"; else MARIADB_STATUS="ready"; fi
}

# ------------------------------------------------------------------------------- main
PG_STATUS="" REDIS_STATUS="" NATS_STATUS="" MARIADB_STATUS=""
if [ "${1:-}" = mariadb ]; then
  ensure_mariadb
  echo "mariadb: $MARIADB_STATUS"
  exit 0
fi
ensure_postgres
ensure_databases
echo "postgres: $PG_STATUS"
ensure_redis
echo "redis: $REDIS_STATUS"
ensure_nats
echo "nats: $NATS_STATUS"
