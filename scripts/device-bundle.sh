#!/usr/bin/env bash
# Packs what the TypeScript side needs on a GPU machine without Node or network into .device/bundle.tar.xz (ignored by
# git): this machine's node binary (.device/nodebin/node), production node_modules (copied from this
# checkout, where native modules are built; better-sqlite3's build intermediates pruned), dist/ and the τ²-bench data (.device/tau2). On the device:
#   tar -xJf .device/bundle.tar.xz && export PATH="$PWD/.device/nodebin:$PATH" TRACE_TAU2_DATA="$PWD/.device/tau2"
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# The installed node_modules (native modules already built here), pruned to production dependencies.
cp package.json package-lock.json "$staging/"
cp -r node_modules "$staging/node_modules"
(cd "$staging" && npm prune --omit=dev --no-audit --no-fund >/dev/null)
rm -rf "$staging"/node_modules/better-sqlite3/{deps,src} "$staging"/node_modules/better-sqlite3/build/Release/obj* "$staging"/node_modules/better-sqlite3/build/Release/.deps
mkdir -p "$staging/.device/nodebin" "$staging/.device/tau2" .device
cp "$(readlink -f "$(command -v node)")" "$staging/.device/nodebin/node"
# The τ² data, unless TRACE_WITH_TAU2=0 (TRACE-mini runs do not need it, and the 64 MiB a device call carries are tight).
if [ "${TRACE_WITH_TAU2:-1}" = 1 ]; then cp -r ../shared/data/tau2/. "$staging/.device/tau2/"; fi
cp -r dist "$staging/dist"
# xz at -9e: its 64 MiB window finds the second copy of esbuild's binary and much of TypeScript's two compilers
# (about 4.6 MB less than the default preset), which a device call's 64 MiB needs beside a candidate checkpoint.
XZ_OPT=-9e tar -cJf .device/bundle.tar.xz -C "$staging" node_modules dist .device/nodebin .device/tau2
ls -la .device/bundle.tar.xz
