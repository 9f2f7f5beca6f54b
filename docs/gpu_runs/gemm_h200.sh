#!/usr/bin/env bash
# The gemm problem's first H200 run (issue 15 item 3), from a bundle made by
# deploy/make_bundle.sh on a build machine and unpacked on the GPU node:
#
#   tests   gpu_tests "[gemm]": kernels/gemm/naive.cu passes all 74 gemm
#           scenarios in the real kseek-runner, and each planted-wrong kernel
#           of tests/gpu/planted/gemm/ is caught, for its own reason
#   verify  kseek verify kernels/gemm/naive.cu --problem gemm --arch sm_90a --scenarios all
#   bench   kseek bench kernels/gemm/naive.cu --problem gemm --arch sm_90a
#             --scenarios square,llm --baseline cublas
#           (square,llm is gemm's default_bench_scenarios; cublas is
#           torch.matmul, timed in the same job)
#
# verify and bench go through a server and a worker on loopback
# (gpu_node_run.sh, as the 2026-12-01 runs did). Outputs go to $OUT:
# 0-node.txt (GPU, driver, Python and PyTorch), 1-gpu-tests-gemm.txt,
# 2-verify/ and 3-bench/ (the command's report, stderr and the stack's logs).
#
#   OUT=/path/to/out KSEEK_BUNDLE=/opt/kseek bash docs/gpu_runs/gemm_h200.sh [tests|verify|bench|all]
#
# One step per call fits the GPU machine's 10-minute limit on a command best;
# `all` (the default) runs the three in turn. KSEEK_BUNDLE defaults to
# dist/kseek-bundle (what make_bundle.sh writes). The exit status is 0 only
# when every step asked for succeeded; a missing GPU or bundle file is said
# plainly and is exit 2.
set -uo pipefail

step=${1:-all}
case "$step" in
  tests | verify | bench | all) ;;
  -h | --help)
    sed -n '2,26p' "$0"
    exit 0
    ;;
  *)
    echo "gemm_h200.sh: unknown step '$step' (tests, verify, bench or all)" >&2
    exit 2
    ;;
esac
if [ -z "${OUT:-}" ]; then
  echo "gemm_h200.sh: set OUT to the folder for the outputs" >&2
  exit 2
fi
bundle=${KSEEK_BUNDLE:-dist/kseek-bundle}
if ! bundle=$(cd "$bundle" 2>/dev/null && pwd); then
  echo "gemm_h200.sh: no bundle at ${KSEEK_BUNDLE:-dist/kseek-bundle} (bash deploy/make_bundle.sh makes one)" >&2
  exit 2
fi
for need in bin/gpu_tests bin/kseek bin/kseek-runner gpu_node_run.sh share/scenarios/gemm/problem.textproto \
  share/scenarios/gemm/scenarios.textproto share/kernels/gemm/naive.cu share/planted/gemm/plant.cuh \
  share/baselines/gemm_baseline.py; do
  if [ ! -e "$bundle/$need" ]; then
    echo "gemm_h200.sh: the bundle at $bundle has no $need: it was made before gemm was added" >&2
    exit 2
  fi
done
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU 0'; then
  echo "gemm_h200.sh: no GPU visible (nvidia-smi -L lists none); this script is for the GPU node" >&2
  exit 2
fi
mkdir -p "$OUT"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
  python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  echo "bundle: $bundle"
} >"$OUT/0-node.txt"

status=0

if [ "$step" = tests ] || [ "$step" = all ]; then
  echo "== gpu_tests [gemm]"
  KSEEK_BUNDLE=$bundle "$bundle/bin/gpu_tests" "[gemm]" 2>&1 | tee "$OUT/1-gpu-tests-gemm.txt"
  rc=${PIPESTATUS[0]}
  echo "[gpu_tests exit $rc]" | tee -a "$OUT/1-gpu-tests-gemm.txt"
  [ "$rc" = 0 ] || status=1
fi

if [ "$step" = verify ] || [ "$step" = all ]; then
  echo "== verify"
  mkdir -p "$OUT/2-verify"
  OUT_DIR="$OUT/2-verify" bash "$bundle/gpu_node_run.sh" "workers" \
    "verify kernels/gemm/naive.cu --problem gemm --arch sm_90a --scenarios all" || status=1
fi

if [ "$step" = bench ] || [ "$step" = all ]; then
  echo "== bench"
  mkdir -p "$OUT/3-bench"
  OUT_DIR="$OUT/3-bench" bash "$bundle/gpu_node_run.sh" "workers" \
    "bench kernels/gemm/naive.cu --problem gemm --arch sm_90a --scenarios square,llm --baseline cublas" || status=1
fi

exit $status
