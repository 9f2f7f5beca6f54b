# Thirteenth session, device call 6 (`carry: [".lab13"]`): is host time what kseek reads against
# the pool? sm90_c8 (c8ac9d1), sm90_pool (24cad6c, the pool planned on every call, 25 us of host
# time on this CPU) and sm90_final (6aafc2c, the plan kept for the next call), timed as kseek's
# runner times them (synchronised per call) and as the lab does (host ahead), by synctime.py.
set -o pipefail
export PYTHONUNBUFFERED=1
L=../../../.lab13
cd docs/kernels/sm90_lab
timeout 150 python3 synctime.py $L/sm90_c8.so $L/sm90_pool.so $L/sm90_final.so --reps 60 2>&1 | tee $OUT/synctime.txt
