#!/usr/bin/env bash
# Prepares a fresh Debian/Ubuntu machine (run as root, or with sudo available) for corral:
# system packages (Docker engine, bubblewrap, debootstrap), a running dockerd, npm dependencies,
# and the sandbox images built offline from Debian packages. Idempotent: every step is skipped when done.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
/usr/bin/python3 -c 'import flake8' >/dev/null 2>&1 || missing+=(python3-flake8) # npm run lint:agent
# The Python client's test installs it with the stock pip, setuptools and wheel (test/e2e/python-client.test.ts).
/usr/bin/python3 -c 'import setuptools, wheel, pip' >/dev/null 2>&1 || missing+=(python3-pip python3-setuptools python3-wheel)
# The GRPO example trains a small policy with Debian's torch (examples/train-grpo, test/e2e/train-grpo.test.ts).
/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1 || missing+=(python3-torch python3-numpy)
# The run viewer's browser tests drive Debian's chromium headless (test/e2e/viewer-browser.test.ts).
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The durable queue's tests and bench (issue 15): Redis, and `ip netns` for the multi-host network-namespace tests.
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v iptables >/dev/null 2>&1 || missing+=(iptables) # cuts a namespace's link (test/helpers/network-namespaces.ts)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "setup: starting dockerd"
  if command -v systemctl >/dev/null 2>&1 && systemctl list-units >/dev/null 2>&1; then
    as_root systemctl start docker || true
  fi
  if ! docker info >/dev/null 2>&1; then
    as_root sh -c 'nohup dockerd >/var/log/corral-dockerd.log 2>&1 &'
  fi
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "setup: dockerd did not start; see /var/log/corral-dockerd.log" >&2; exit 1; }
fi

# A Redis on loopback for the queue (started by hand, not as a systemd service: CI machines may not run systemd).
# Tests that need isolation start their own redis-server on a private port in a temp dir.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "setup: starting redis-server on 127.0.0.1:6379"
  as_root mkdir -p /var/lib/corral-redis
  as_root redis-server --bind 127.0.0.1 --port 6379 --dir /var/lib/corral-redis --daemonize yes --logfile /var/log/corral-redis.log
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "setup: redis-server did not start; see /var/log/corral-redis.log" >&2; exit 1; }
fi

# node_modules by content hash (the folder's lock file, node's version, the machine): a clean clone copies each
# folder's node_modules from corral's cache in seconds instead of a minute of npm installs; a changed lock file
# installs once and fills a new entry. $1: the folder; the rest: its install command, run only on a cache miss.
modules_cache_root="${CORRAL_CACHE_DIR:-$HOME/.cache/corral}/node-modules"
cached_node_modules() {
  local folder=$1
  shift
  if [ -f "$folder/node_modules/.package-lock.json" ] && [ ! "$folder/package-lock.json" -nt "$folder/node_modules/.package-lock.json" ]; then
    return 0
  fi
  local key cache
  key=$( (cat "$folder/package-lock.json"; node --version; uname -m) | sha256sum | cut -c1-16)
  cache="$modules_cache_root/$key"
  if [ -d "$cache/node_modules" ]; then
    echo "setup: $folder/node_modules from the cache ($key)"
    rm -rf "$folder/node_modules"
    cp -a "$cache/node_modules" "$folder/node_modules"
  else
    echo "setup: $*"
    "$@"
    rm -rf "$cache.partial"
    mkdir -p "$cache.partial"
    cp -a "$folder/node_modules" "$cache.partial/"
    rm -rf "$cache"
    mv "$cache.partial" "$cache"
  fi
  touch "$folder/node_modules/.package-lock.json"
}

cached_node_modules . npm ci --no-fund --no-audit
# Node 22 only for the MCP conformance suite, kept in its own prefix (see tools/node22/README.md).
cached_node_modules tools/node22 npm install --prefix tools/node22 --no-fund --no-audit --no-save
# The conformance suite's 0.2.0 alpha line (2026-07-28 scenarios), pinned in its own prefix beside the 0.1.x devDependency.
cached_node_modules tools/conformance-alpha npm ci --prefix tools/conformance-alpha --no-fund --no-audit

node bin/corral.mjs images build --offline

# The five CLI agents (and their Node 22) in corral's cache, outside the clone: `corral agents install` skips what is
# installed, and this stamp (a hash of the pinned list) skips even starting it when nothing changed.
agents_cache="${CORRAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/corral}/agents"
agents_hash=$(cat src/cli-agents/{opencode,codex,claude-code,gemini-cli,qwen-code,node-runtime,package-installer}.ts | sha256sum | cut -c1-16)
if [ ! -f "$agents_cache/.setup-$agents_hash" ]; then
  echo "setup: installing the CLI agents into $agents_cache"
  node bin/corral.mjs agents install
  rm -f "$agents_cache"/.setup-*
  touch "$agents_cache/.setup-$agents_hash"
fi
