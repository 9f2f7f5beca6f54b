#!/usr/bin/env bash
# Installs the dependencies (Debian 12, apt-get) and builds everything into
# build/ (binaries in build/bin/). Extra arguments go to cmake's configure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install_deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C build -j"$(nproc)"
