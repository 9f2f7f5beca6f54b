#!/usr/bin/env bash
# The main job, on one machine: builds KernelSeek, brings up a local server
# and worker on loopback (state in a temp dir), and compiles every kernel in
# kernels/ remotely for Hopper (sm_90a), printing each resource report and
# SASS summary. Everything it started is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/build.sh
bin=build/bin
state=$(mktemp -d /tmp/kseek-demo-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "demo: logs and database kept in $state"
}
trap cleanup EXIT

"$bin/kseek-server" token create --db "$state/kseek.db" --user demo 2>/dev/null | tail -1 >"$state/user.token"
"$bin/kseek-server" token create --db "$state/kseek.db" --worker local 2>/dev/null | tail -1 >"$state/worker.token"
"$bin/kseek-server" --listen 127.0.0.1:0 --db "$state/kseek.db" 2>"$state/server.log" &
pids+=($!)
for _ in $(seq 100); do
  address=$(grep -o 'listening on [0-9.:]*' "$state/server.log" | awk '{print $3}') && [ -n "$address" ] && break
  sleep 0.1
done
[ -n "${address:-}" ] || { echo "demo: server did not start:"; cat "$state/server.log"; exit 1; }
KSEEK_WORKER_TOKEN=$(cat "$state/worker.token") "$bin/kseek-worker" --server "$address" --name local-worker \
  2>"$state/worker.log" &
pids+=($!)
export KSEEK_SERVER=$address KSEEK_TOKEN=$(cat "$state/user.token")
echo "demo: server at $address, worker local-worker"

status=0
for kernel in $(find kernels -name '*.cu' | sort); do
  echo
  echo "=== $kernel ==="
  "$bin/kseek" compile "$kernel" --arch sm_90a || status=1
done
echo
"$bin/kseek" jobs
"$bin/kseek" workers
exit $status
