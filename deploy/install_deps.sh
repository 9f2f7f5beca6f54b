#!/usr/bin/env bash
# Installs what KernelSeek needs to build and test on a fresh Debian 12 machine:
# Debian's gRPC, protobuf, Abseil, SQLite, libcurl, OpenSSL, Catch2,
# nlohmann-json, RE2 and prometheus-cpp (the server's metrics), the build tools, bubblewrap (the worker's sandbox),
# clang with libFuzzer (the fuzz targets), and - where the CUDA toolkit lacks them -
# cuobjdump and nvdisasm from NVIDIA's PyPI wheels (the worker's SASS summary
# needs both). The CUDA toolkit itself is expected at /usr/local/cuda.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 python3-pip
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev libssl-dev
  catch2 nlohmann-json3-dev libre2-dev
  prometheus-cpp-dev
  bubblewrap
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install_deps: no CUDA toolkit at /usr/local/cuda (nvcc is needed to build kernels)" >&2
  exit 1
fi

# cuobjdump/nvdisasm: the CUDA 13.0 wheels are not on PyPI; 13.2 reads 13.0 cubins.
if ! command -v cuobjdump >/dev/null && [ ! -x /usr/local/cuda/bin/cuobjdump ]; then
  echo "install_deps: installing cuobjdump and nvdisasm from PyPI"
  tools=/opt/kseek-cuda-tools
  python3 -m pip install -q --disable-pip-version-check --target "$tools" \
    nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
  ln -sf "$tools/nvidia/cu13/bin/cuobjdump" /usr/local/bin/cuobjdump
  ln -sf "$tools/nvidia/cu13/bin/nvdisasm" /usr/local/bin/nvdisasm
fi
echo "install_deps: ok"
