# Nineteenth session, the reduced call: what s19_run1.sh decides first, for a call with about
# 400 s of device time left (`carry: [".whl", ".lab18/so.tar.xz"]`, .lab18 built as s19_run1.sh says).
# The speed question first (one bench pass at d = 128: head, vs, fb, vsfb interleaved with FA3),
# then the checks of vsfb, vs and fb, then rising.py on vsfb, each only while BUDGET (default
# 330 s) leaves room.
mkdir -p .lab18x && tar -C .lab18x -xJf .lab18/so.tar.xz || exit 1
BUDGET=${BUDGET:-330}
WHEELS=.whl LAB=.lab18x source docs/kernels/sm90_lab/lab.sh || exit 1
bench1 1 128 head vs fb vsfb
summary d128-1
for v in vsfb vs fb; do room 60 && check $v; done
cat $OUT/check-*.txt > $OUT/checks.txt 2>/dev/null; rm -f $OUT/check-*.txt
room 100 && { timeout 90 python3 rising.py $L/sm90_vsfb.so > $OUT/rising.txt 2>&1
  echo "rising: $(grep -c '^ok' $OUT/rising.txt) ok"; grep -E 'BAD|CHECK' $OUT/rising.txt | head; }
room 0
