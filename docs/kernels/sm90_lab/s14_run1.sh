# Fourteenth session, device call 1 (`carry: [".lab14"]`, the builds and the FA3 wheel): host time
# per call, as kseek's runner sees it. sm90_c8 (c8ac9d1), sm90_final (6aafc2c: the pool's plan
# kept), sm90_head (84ed721: the TMA maps and the tail's plan kept too, not yet run), sm90_wp (head
# with the tail's workspace from a pool of the file's own that keeps its memory between calls: the
# device's default pool gives it back at every synchronisation). Checks of head and wp, then
# synctime.py with s = 512 and 1024 as well.
LAB=.lab14 source docs/kernels/sm90_lab/lab.sh || exit 1
check head wp
timeout 300 python3 synctime.py $L/sm90_c8.so $L/sm90_final.so $L/sm90_head.so $L/sm90_wp.so \
  --reps 40 --short 2>&1 | tee $OUT/synctime.txt
