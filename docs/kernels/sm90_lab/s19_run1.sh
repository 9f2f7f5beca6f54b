# Nineteenth session: the eighteenth session's variants and this session's fb and vsfb, built
# here (no GPU) by
#   bash docs/kernels/sm90_lab/build.sh .lab18 docs/kernels/sm90_lab/s18_*.patch docs/kernels/sm90_lab/s19_*.patch
# in one device call (`carry: [".whl", ".lab18/so.tar.xz"]`) when machines are scarce: steps in
# order of what they decide, each only while the call's time leaves room for it (ELAPSED lines
# say where the time went).
#   1. the checks of vs, fb (s19_fb.patch) and vsfb (s19_vsfb.patch: vs and fb) and one bench
#      pass at d = 128 (head, vs, fb, vsfb), the question that decides the figure; 2. rising.py
#      on vs; 3. vs64's check and a pass at d = 64; 4. a pass at d = 256; 5. the second pass at
#      d = 128 (vbp too); 6. rising.py on vs64.
# BUDGET (default 580) is the seconds the steps may take, for a call with less device time left.
# Files: checks.txt, rising.txt, bench-*.txt (at most 8 come back).
mkdir -p .lab18x && tar -C .lab18x -xJf .lab18/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab18x source docs/kernels/sm90_lab/lab.sh || exit 1
checks() { check "$@"; cat $OUT/check-*.txt >> $OUT/checks.txt; rm -f $OUT/check-*.txt; }
checks vs fb vsfb
room 130 && bench1 1 128 head vs fb vsfb
room 200 && { timeout 190 python3 rising.py $L/sm90_vs.so >> $OUT/rising.txt 2>&1; grep -E 'BAD|CHECK' $OUT/rising.txt | tail -3; }
room 180 && { checks vs64; bench1 1 64 head vs64; }
room 130 && bench1 1 256 head vs fb vsfb
room 130 && bench1 2 128 head vs fb vsfb vbp
room 120 && { timeout 110 python3 rising.py $L/sm90_vs64.so >> $OUT/rising.txt 2>&1; grep -E 'BAD|CHECK' $OUT/rising.txt | tail -3; }
room 0
echo "rising: $(grep -c '^ok' $OUT/rising.txt) ok"; grep -E 'BAD|CHECK' $OUT/rising.txt | head -20
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
