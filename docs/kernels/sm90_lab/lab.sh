# Sourced by a device-call script from the repository root on the GPU machine, with LAB the carried
# lab folder (.lab13): installs the FA3 wheel found there (or in WHEELS) into /tmp/site, moves to this folder and
# sets L, the lab folder as seen from here. Then, for the script:
#   check V...   the harness's checks of $L/sm90_V.so, into $OUT/check-V.txt, a line each;
#   passed V...  those of V whose checks all passed (to time only those: a variant that hangs
#                would eat the call's time);
#   bench "V..." D...  each D twice (pass 1, then 2), bf16: $L/sm90_V.so for each V, interleaved with
#                FA3 in one process, into $OUT/bench-dD-PASS.txt;
#   bench1 PASS D V...  one such pass at one D;
#   bench2 D S V...  both passes at D, head first and then V in reverse order ahead of head,
#                each while room S is left;
#   trace V D CAUSAL S  the tile trace of $L/sm90_V.so (a tt build, tt.py) at one shape into
#                $OUT/tt.txt under a "##### V D CAUSAL S" line, while room 15 is left;
#   room S       prints ELAPSED (seconds since lab.sh was sourced) and succeeds while BUDGET (default
#                580) leaves at least S seconds, for a call's steps in order of what they decide;
#   summary F... each $OUT/bench-F.txt over FA3, by region (cmp.py).
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
  "${WHEELS:-$LAB}"/fa3*.whl || return 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
L=../../../$LAB
cd docs/kernels/sm90_lab || return 1

check() {
  for v in "$@"; do
    timeout 60 python3 harness.py $L/sm90_$v.so --check > $OUT/check-$v.txt 2>&1
    echo "$v: $(grep -E 'BAD|CHECK' $OUT/check-$v.txt | tail -2)"
  done
}

passed() {
  local v
  for v in "$@"; do grep -q 'CHECK: \([0-9]*\)/\1 passed' $OUT/check-$v.txt && echo $v; done
}

bench1() {
  local pass=$1 d=$2 so=() v
  shift 2
  for v in "$@"; do so+=("$L/sm90_$v.so"); done
  timeout 120 python3 harness.py "${so[@]}" --bench --fa3 --only-d $d --only-dtype bf16 \
    --reps 10 > $OUT/bench-d$d-$pass.txt 2>&1
}

bench2() {
  local d=$1 need=$2
  shift 2
  room $need && bench1 1 $d head "$@"
  room $need && bench1 2 $d $(printf '%s\n' "$@" | tac) head
}

bench() {
  local variants=$1 d pass
  shift
  for pass in 1 2; do
    for d in "$@"; do bench1 $pass $d $variants; done
  done
}

trace() {
  local v=$1
  shift
  room 15 && echo "##### $v $*" >> $OUT/tt.txt &&
    timeout 60 python3 tt.py $L/sm90_$v.so "$@" >> $OUT/tt.txt 2>&1
}

LAB_T0=$(date +%s)
room() {
  local spent=$(( $(date +%s) - LAB_T0 ))
  echo "ELAPSED $spent s"
  [ $(( ${BUDGET:-580} - spent )) -ge $1 ]
}

summary() {
  for f in "$@"; do echo "== $f"; python3 cmp.py $OUT/bench-$f.txt --vs fa3 2>&1 | tail -7; done
}
