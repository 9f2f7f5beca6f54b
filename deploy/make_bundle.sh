#!/usr/bin/env bash
# Builds a self-contained, relocatable bundle of KernelSeek for GPU nodes that
# have the NVIDIA driver and CUDA but not our Debian packages:
#
#   dist/kseek-bundle/bin/   kseek, kseek-server, kseek-worker, kseek-runner, ...
#   dist/kseek-bundle/lib/   every shared library they need except glibc, the
#                            C++ runtime and CUDA's own (driver, cudart, cuBLAS)
#   dist/kseek-bundle/share/ scenarios/, kernels/, question_bank/, baselines/,
#                            planted/ (the GPU tests' planted-wrong kernels),
#                            wheels/ (when there are wheels to bundle, below)
#
# Python wheels for the baselines that PyTorch lacks (fa3-fwd, flash-attn-4
# and what it needs) go into share/wheels from $KSEEK_WHEELS (default .whl,
# where `pip download` put them; see docs/baselines.md) when that folder
# holds any; the worker installs them for its Python at start.
#
# Binaries are linked with DT_RPATH $ORIGIN/../lib (not RUNPATH, which the
# dynamic loader does not apply to the dependencies of those libraries).
# CUDA libraries are found through /usr/local/cuda/lib64 on the node.
#
#   bash deploy/make_bundle.sh [OUT_DIR]     (default dist/kseek-bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/kseek-bundle}
bash deploy/install_deps.sh >/dev/null
cmake -S . -B build-bundle -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSEEK_BUNDLE=ON >/dev/null
ninja -C build-bundle -j"$(nproc)" kseek kseek-server kseek-worker kseek-runner gpu_tests

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/share"
for b in kseek kseek-server kseek-worker kseek-runner gpu_tests; do
  cp build-bundle/bin/$b "$out/bin/"
done
# bubblewrap, the worker's sandbox: the real program in libexec/, started by
# a wrapper that points it at the bundle's copies of its libraries.
mkdir -p "$out/libexec"
cp -L "$(command -v bwrap)" "$out/libexec/bwrap"
cat > "$out/bin/bwrap" <<'WRAP'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/../libexec/bwrap" "$@"
WRAP
chmod 755 "$out/bin/bwrap"
# Libraries the system of any Linux GPU node provides, or CUDA provides there.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libpthread|libdl\.so|librt\.so|libcuda\.so|libcudart|libcublas|libnvidia)'
for b in "$out"/bin/* "$out"/libexec/*; do
  [ "$(head -c 2 "$b")" = "#!" ] && continue
  ldd "$b" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ $name =~ $skip ]] && continue
    cp -nL "$path" "$out/lib/$name"
  done
done
cp -r scenarios kernels question_bank "$out/share/"
cp -r worker/baselines "$out/share/baselines"
cp -r tests/gpu/planted "$out/share/planted"
cp -r tests/gpu/probes "$out/share/probes"
cp -r docs/sessions "$out/share/sessions"  # replay traces for demo sessions
cp deploy/gpu_node_run.sh deploy/stack.sh "$out/"
wheels=${KSEEK_WHEELS:-.whl}
if compgen -G "$wheels/*.whl" >/dev/null; then
  mkdir -p "$out/share/wheels"
  cp "$wheels"/*.whl "$out/share/wheels/"
fi
# cuobjdump and nvdisasm for SASS summaries where the node's CUDA lacks them.
for tool in cuobjdump nvdisasm; do
  if path=$(command -v $tool); then cp -L "$path" "$out/bin/"; fi
done
echo "bundle: $out: $(ls "$out/lib" | wc -l) libraries, $(du -sh "$out" | cut -f1)"
