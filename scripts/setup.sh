#!/usr/bin/env bash
# Installs what the build and the tests need, idempotently, through cargo, npm and apt only.
# Sourced by scripts/serve and scripts/test. Versions are pinned for reasons in ../shared/TOOLCHAIN.md.
set -euo pipefail

need() { command -v "$1" >/dev/null 2>&1 || { echo "missing prerequisite: $1 — $2" >&2; exit 1; }; }
need cargo "install Rust with rustup (https://rustup.rs), stable toolchain"
need rustup "install Rust with rustup (https://rustup.rs)"
need node "install Node.js 20+ (apt-get install nodejs npm)"
need npm "install npm (apt-get install npm)"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' "$ROOT/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt

if [[ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]]; then
  echo "setup: installing trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi
if [[ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]]; then
  echo "setup: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: its lockfile pins a crate version the registry lacks (TOOLCHAIN.md).
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# npm: binaryen (wasm-opt 132), playwright-core, axe-core — versions in package-lock.json.
if [[ ! -x "$ROOT/node_modules/.bin/wasm-opt" || ! -d "$ROOT/node_modules/playwright-core" ]]; then
  echo "setup: npm ci"
  (cd "$ROOT" && npm ci --no-audit --no-fund)
fi

setup_browser() {
  if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
    echo "setup: installing Debian's chromium and chromium-driver"
    if [[ $(id -u) -eq 0 ]]; then
      apt-get update -qq && apt-get install -y -qq chromium chromium-driver
    else
      sudo apt-get update -qq && sudo apt-get install -y -qq chromium chromium-driver
    fi
  fi
  export CHROMEDRIVER=/usr/bin/chromedriver
}
