#!/usr/bin/env bash
# The main job, on one machine: builds KernelSeek, brings up a local server
# and worker on loopback (state in a temp dir), and compiles every kernel in
# kernels/ remotely for Hopper (sm_90a), printing each resource report and
# SASS summary. Everything it started is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/build.sh
source deploy/stack.sh
state=$(mktemp -d /tmp/kseek-demo-XXXXXX)
trap 'stop_stack; echo "demo: logs and database kept in $state"' EXIT
start_stack "$PWD/build/bin" "$state" local-worker
echo "demo: server at $KSEEK_SERVER, worker local-worker"

status=0
for kernel in $(find kernels -name '*.cu' | sort); do
  echo
  echo "=== $kernel ==="
  build/bin/kseek compile "$kernel" --arch sm_90a || status=1
done
echo
build/bin/kseek jobs
build/bin/kseek workers
exit $status
