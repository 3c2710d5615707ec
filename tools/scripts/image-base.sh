#!/usr/bin/env bash
# Makes a local stand-in for `node:20-bookworm-slim` where no image registry is reachable, and
# prints its tag. Debian 12 from debootstrap (minbase) + this machine's Node.js 20 binary + the npm
# that Node.js 20 ships (10.8.2, from the npm registry) + user `node` (uid/gid 1000), laid out as
# the official image is (/usr/local/bin/node, /usr/local/lib/node_modules/npm). The host's CA
# bundle is copied in and named by NODE_EXTRA_CA_CERTS, so npm in a build trusts what the host
# trusts (a proxy in front of the registry).
#
#   bash tools/scripts/image-base.sh      # → switchyard-local/node:<node version>-npm<npm>-bookworm
#
# Kept between runs: the image itself (keyed by the Node.js and npm versions; `docker rmi` it to
# make it again) and the npm tarball under IMAGE_BASE_CACHE (/var/cache/switchyard-image).
# Needs root, debootstrap, and a running dockerd. Logs go to stderr, the tag alone to stdout.
set -euo pipefail
NPM_VERSION="${IMAGE_BASE_NPM:-10.8.2}"
CACHE="${IMAGE_BASE_CACHE:-/var/cache/switchyard-image}"
NODE_BIN="$(command -v node)"
NODE_VERSION="$("$NODE_BIN" -v)"
TAG="switchyard-local/node:${NODE_VERSION#v}-npm${NPM_VERSION}-bookworm"
log() { printf 'image-base: %s\n' "$*" >&2; }

[[ "$NODE_VERSION" == v20.* ]] || { log "Node.js 20 is needed on this machine (found $NODE_VERSION)"; exit 1; }
if docker image inspect "$TAG" >/dev/null 2>&1; then
  log "$TAG already made"
  echo "$TAG"
  exit 0
fi
[[ $(id -u) -eq 0 ]] || { log "needs root (debootstrap)"; exit 1; }
command -v debootstrap >/dev/null || { log "debootstrap is missing: apt-get install -y debootstrap"; exit 1; }

mkdir -p "$CACHE"
tarball="$CACHE/npm-$NPM_VERSION.tgz"
if [[ ! -s "$tarball" ]]; then
  log "npm $NPM_VERSION from the registry"
  (cd "$CACHE" && npm pack "npm@$NPM_VERSION" --silent >/dev/null)
fi

root=$(mktemp -d /tmp/sy-image-base.XXXX)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
log "debootstrap --variant=minbase bookworm into $root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1 ||
  { tail -n 20 "$CACHE/debootstrap.log" >&2; log "debootstrap failed (log: $CACHE/debootstrap.log)"; exit 1; }

# Node.js and npm where the official image has them.
install -m 755 "$NODE_BIN" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$tarball" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# The official image's user.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# The host's trust (a proxy in front of the npm registry), read by Node.js through NODE_EXTRA_CA_CERTS.
install -D -m 644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
# What an image does not need.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*

log "docker import as $TAG"
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change "ENV NODE_VERSION=${NODE_VERSION#v}" \
  --change 'CMD ["node"]' \
  - "$TAG" >/dev/null
docker run --rm --network host "$TAG" sh -c 'echo "node $(node -v), npm $(npm -v), $(id node)"' >&2
echo "$TAG"
