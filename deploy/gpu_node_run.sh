#!/usr/bin/env bash
# Runs the whole stack from a bundle on a GPU node: a server and a worker on
# loopback (state in a temp dir), then the given kseek commands, one per
# argument, each run as `kseek ARGS...` from the bundle's share/ folder (so
# kernels/... and sessions/... name the bundled files). Output of each goes to
# stdout and, if OUT_DIR is set, to OUT_DIR/NN-<first word>.txt; the stack's
# logs to OUT_DIR too.
#
#   gpu_node_run.sh "workers" "verify kernels/attention_fwd/naive.cu --problem attention_fwd --arch sm_90a"
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
source "$bundle/stack.sh"
state=$(mktemp -d /tmp/kseek-node-XXXXXX)
out=${OUT_DIR:-$state}
trap 'stop_stack; cp "$state"/*.log "$out/" 2>/dev/null' EXIT
start_stack "$bundle/bin" "$state" "$(hostname)-gpu" || exit 1
sleep 2
cd "$bundle/share"
status=0
n=0
for command in "$@"; do
  n=$((n + 1))
  name=$(printf '%02d-%s' "$n" "${command%% *}")
  echo "\$ kseek $command"
  # shellcheck disable=SC2086  # each argument is one command line
  "$bundle/bin/kseek" $command 2>"$out/$name.stderr.txt" | tee "$out/$name.txt"
  rc=${PIPESTATUS[0]}
  echo "[exit $rc]"
  [ "$rc" = 0 ] || status=1
done
exit $status
