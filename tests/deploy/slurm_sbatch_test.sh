#!/usr/bin/env bash
# Runs deploy/slurm/kseek-workers.sbatch with a fake kseek-worker and fake
# SLURM_* variables: one worker per allocated GPU with --gpu N, its own
# --sandbox-uid and job folder; SIGTERM reaches every worker; a worker's
# failure is the script's exit status; no GPU is a clear error.
set -euo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/deploy/slurm/kseek-workers.sbatch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok: $1"; else echo "FAILED: $1" >&2; failures=$((failures + 1)); fi
}

# The fake worker records its arguments and environment, then runs until
# SIGTERM (recorded too), or exits at once with $FAKE_EXIT when set.
mkdir -p "$work/bin"
cat > "$work/bin/kseek-worker" <<'FAKE'
#!/usr/bin/env bash
gpu=none
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [[ ${args[i]} == --gpu ]] && gpu=${args[i + 1]}; done
echo "$*" > "$FAKE_OUT/gpu$gpu.args"
echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER-unset}" > "$FAKE_OUT/gpu$gpu.env"
[[ -n ${FAKE_EXIT:-} && $gpu == "${FAKE_FAIL_GPU:-}" ]] && exit "$FAKE_EXIT"
trap 'echo term > "$FAKE_OUT/gpu$gpu.term"; exit 0' TERM
while :; do sleep 0.1; done
FAKE
chmod 755 "$work/bin/kseek-worker"
echo 'server: "127.0.0.1:7070"' > "$work/worker.textproto"

# run NAME VAR=VALUE...: starts the script with only these Slurm variables,
# waits for its workers, SIGTERMs it, and leaves its exit status in $work/NAME.rc.
run() {
  local name=$1 expect=$2
  shift 2
  mkdir -p "$work/$name"
  env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work" FAKE_OUT="$work/$name" KSEEK_CONFIG="$work/worker.textproto" \
    KSEEK_JOB_DIR="$work/$name/jobs" SLURM_JOB_ID=42 "$@" \
    bash "$script" > "$work/$name/out" 2>&1 &
  local pid=$! i
  for ((i = 0; i < 100; i++)); do
    (($(find "$work/$name" -maxdepth 1 -name '*.args' | wc -l) >= expect)) && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  sleep 0.2
  kill -TERM "$pid" 2>/dev/null || true
  local rc=0
  wait "$pid" || rc=$?
  echo "$rc" > "$work/$name.rc"
}
count() { find "$work/$1" -maxdepth 1 -name "*.$2" | wc -l; }  # count RUN args|term
has_args() { grep -qx -- "$2" "$work/$1.args"; }
host=$(hostname -s)
args_for() {  # args_for GPU UID JOBDIR: a sandbox uid only for a root script
  local uid=""
  ((EUID == 0)) && uid=" --sandbox-uid $2"
  echo "--config $work/worker.textproto --gpu $1 --name $host-gpu$1$uid --temp-dir $3/gpu$1"
}

run job_gpus 3 SLURM_JOB_GPUS=0,1,4 CUDA_VISIBLE_DEVICES=0,1,2 SLURM_GPUS_ON_NODE=3
check "SLURM_JOB_GPUS 0,1,4: three workers" test "$(count job_gpus args)" -eq 3
check "GPU 0 worker flags" has_args job_gpus/gpu0 "$(args_for 0 61184 "$work/job_gpus/jobs")"
check "GPU 1 worker flags" has_args job_gpus/gpu1 "$(args_for 1 61185 "$work/job_gpus/jobs")"
check "GPU 4 worker flags (the node's index, its own uid)" has_args job_gpus/gpu4 "$(args_for 4 61188 "$work/job_gpus/jobs")"
check "workers see no CUDA_VISIBLE_DEVICES and PCI order" \
  grep -qx "CUDA_VISIBLE_DEVICES=unset CUDA_DEVICE_ORDER=PCI_BUS_ID" "$work/job_gpus/gpu4.env"
check "SIGTERM reached every worker" test "$(count job_gpus term)" -eq 3
check "exit 0 after a clean stop" test "$(cat "$work/job_gpus.rc")" -eq 0
check "job folders made" test -d "$work/job_gpus/jobs/gpu4"

run cuda_visible 2 CUDA_VISIBLE_DEVICES=2,3
check "CUDA_VISIBLE_DEVICES 2,3: workers for GPUs 2 and 3" test -e "$work/cuda_visible/gpu2.args" -a -e "$work/cuda_visible/gpu3.args"
check "... and no other" test "$(count cuda_visible args)" -eq 2

run count 4 SLURM_GPUS_ON_NODE=4
check "SLURM_GPUS_ON_NODE=4: GPUs 0-3" test "$(count count args)" -eq 4
check "GPU 3 worker flags" has_args count/gpu3 "$(args_for 3 61187 "$work/count/jobs")"

run ranges 3 SLURM_JOB_GPUS=1-2,7
check "SLURM_JOB_GPUS with a range" test -e "$work/ranges/gpu1.args" -a -e "$work/ranges/gpu2.args" -a -e "$work/ranges/gpu7.args"

run none 0
check "no GPU: exit 2" test "$(cat "$work/none.rc")" -eq 2
check "no GPU: says how to ask for one" grep -q "this job has no GPU.*--gres=gpu:N" "$work/none/out"

run uuids 0 CUDA_VISIBLE_DEVICES=GPU-8f2c1a
check "GPU UUIDs: a clear error" grep -q "not a list of GPU indices" "$work/uuids/out"

run failing 2 SLURM_JOB_GPUS=0,1 FAKE_EXIT=2 FAKE_FAIL_GPU=1
check "a worker that fails makes the script fail with its status" test "$(cat "$work/failing.rc")" -eq 2
check "... and the other worker was stopped" test -e "$work/failing/gpu0.term"

if ((failures > 0)); then
  echo "slurm_sbatch_test: $failures check(s) failed" >&2
  exit 1
fi
echo "slurm_sbatch_test: all checks passed"
