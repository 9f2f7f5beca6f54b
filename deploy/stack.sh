# Sourced by demo.sh and gpu_node_run.sh: starts a kseek-server and one
# kseek-worker on loopback with their state in a directory, and exports
# KSEEK_SERVER and KSEEK_TOKEN for the CLI. The caller stops them with
# stop_stack (its EXIT trap).
#
#   start_stack BIN_DIR STATE_DIR WORKER_NAME
STACK_PIDS=()

start_stack() {
  local bin=$1 state=$2 name=$3 address=""
  "$bin/kseek-server" token create --db "$state/kseek.db" --user local 2>/dev/null | tail -1 >"$state/user.token"
  "$bin/kseek-server" token create --db "$state/kseek.db" --worker local 2>/dev/null | tail -1 >"$state/worker.token"
  "$bin/kseek-server" --listen 127.0.0.1:0 --db "$state/kseek.db" 2>"$state/server.log" &
  STACK_PIDS+=($!)
  for _ in $(seq 100); do
    address=$(grep -o 'listening on [0-9.:]*' "$state/server.log" | awk '{print $3}' || true)
    [ -n "$address" ] && break
    sleep 0.1
  done
  if [ -z "$address" ]; then
    echo "kseek-server did not start:" >&2
    cat "$state/server.log" >&2
    return 1
  fi
  PATH=$bin:$PATH KSEEK_WORKER_TOKEN=$(cat "$state/worker.token") "$bin/kseek-worker" --server "$address" \
    --name "$name" 2>"$state/worker.log" &
  STACK_PIDS+=($!)
  # The worker probes its tools and baselines (importing PyTorch) before it
  # first calls in; wait for that, so a first `kseek workers` lists it.
  for _ in $(seq 1800); do
    grep -q ' serving ' "$state/worker.log" 2>/dev/null && break
    sleep 0.1
  done
  export KSEEK_SERVER=$address KSEEK_TOKEN
  KSEEK_TOKEN=$(cat "$state/user.token")
  # Then until the server lists it: a job submitted before its first call
  # would find no worker that could run it, and be refused.
  for _ in $(seq 300); do
    "$bin/kseek" workers 2>/dev/null | grep -q "^$name " && return 0
    sleep 0.1
  done
  echo "kseek-worker $name did not register:" >&2
  cat "$state/worker.log" >&2
  return 1
}

stop_stack() {
  for pid in "${STACK_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
}
