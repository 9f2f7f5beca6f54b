#!/usr/bin/env bash
# Runs the whole stack from a bundle on a GPU node: a server and a worker on
# loopback (state in a temp dir), then the given kseek commands, one per
# argument, each run as `kseek ARGS...` with the bundle's kernels as
# kernels/... . Output of each goes to stdout and, if OUT_DIR is set, to
# OUT_DIR/NN-<first word>.txt; the stack's logs to OUT_DIR too.
#
#   gpu_node_run.sh "workers" "verify kernels/attention_fwd/naive.cu --problem attention_fwd --arch sm_90a"
set -uo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
bin=$bundle/bin
state=$(mktemp -d /tmp/kseek-node-XXXXXX)
out=${OUT_DIR:-$state}
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  cp "$state"/*.log "$out/" 2>/dev/null
}
trap cleanup EXIT

"$bin/kseek-server" token create --db "$state/kseek.db" --user node 2>/dev/null | tail -1 >"$state/user.token"
"$bin/kseek-server" token create --db "$state/kseek.db" --worker node 2>/dev/null | tail -1 >"$state/worker.token"
"$bin/kseek-server" --listen 127.0.0.1:0 --db "$state/kseek.db" 2>"$state/server.log" &
pids+=($!)
for _ in $(seq 100); do
  address=$(grep -o 'listening on [0-9.:]*' "$state/server.log" | awk '{print $3}') && [ -n "$address" ] && break
  sleep 0.1
done
[ -n "${address:-}" ] || { cat "$state/server.log"; exit 1; }
PATH=$bin:$PATH KSEEK_WORKER_TOKEN=$(cat "$state/worker.token") "$bin/kseek-worker" --server "$address" \
  --name "$(hostname)-gpu" 2>"$state/worker.log" &
pids+=($!)
export KSEEK_SERVER=$address KSEEK_TOKEN=$(cat "$state/user.token")
sleep 2
cd "$bundle/share"
status=0
n=0
for command in "$@"; do
  n=$((n + 1))
  name=$(printf '%02d-%s' "$n" "${command%% *}")
  echo "\$ kseek $command"
  # shellcheck disable=SC2086  # each argument is one command line
  "$bin/kseek" $command 2>"$out/$name.stderr.txt" | tee "$out/$name.txt"
  rc=${PIPESTATUS[0]}
  echo "[exit $rc]"
  [ "$rc" = 0 ] || status=1
done
exit $status
