# Twentieth session, call 1 of the two the device time left (`carry: [".whl",
# ".lab18/so.tar.xz", ".lab20/so.tar.xz"]`): vsm (s20_vsm.patch: vs and vs64 in the unmasked copy
# of the step only, the masked copy head's), checked and benched at d = 128 and 64 beside head, vs
# and vs64 (two passes each). It prints "picked: NAME": the file whose kernels led FA3 most over
# those passes, vs64's (vs at d >= 128, vs64 at d = 64) or vsm's, if it led head's by more than
# 1%, else none. Call 2, on the machine this one leaves warm (the FA3 wheel stays there; the
# bundle and the wheels together are over one call's 64 MiB), with `carry: [".lab12", ".whl2"]`
# (.lab12 holds the bundle and both files):
#   NODE_SECONDS=400 bash docs/kernels/sm90_lab/s15_run3.sh .lab12/sm90_NAME.cu
# kseek verify of all scenarios and kseek bench of the perf set against FA3 and cuDNN through the
# bundle. (A file the first call wrote in the checkout, .lab20x/pick, was gone in the second.)
mkdir -p .lab20x && tar -C .lab20x -xJf .lab18/so.tar.xz && tar -C .lab20x -xJf .lab20/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab20x source docs/kernels/sm90_lab/lab.sh || exit 1
check vsm
timeout 60 python3 rising.py $L/sm90_vsm.so > $OUT/rising.txt 2>&1
echo "rising: $(grep -c '^ok' $OUT/rising.txt) ok"; grep -E 'BAD|CHECK' $OUT/rising.txt | head -5
for pass in 1 2; do bench1 $pass 128 head vs vsm; bench1 $pass 64 head vs64 vsm; done
summary d128-1 d64-1 d128-2 d64-2
# The geometric mean over FA3 of each file's kernels over all four passes: vs64's file runs vs's
# kernels at d = 128 (the same SASS) and vs64's at d = 64.
pick=$(python3 - $OUT <<'PY'
import glob, math, re, sys
logs = {}
for fn in glob.glob(sys.argv[1] + "/bench-d*-*.txt"):
    for line in open(fn):
        for name, f in re.findall(r"sm90_(\w+)\.so\s+\S+us\s+\d+TF x[\d.]+ f([\d.]+)", line):
            logs.setdefault({"vs": "vs64"}.get(name, name), []).append(math.log(float(f)))
gm = {n: math.exp(sum(v) / len(v)) for n, v in logs.items()}
print(" ".join(f"{n}={g:.3f}(n={len(logs[n])})" for n, g in sorted(gm.items())), file=sys.stderr)
best = max(("vs64", "vsm"), key=lambda n: gm.get(n, 0))
print(best if gm.get(best, 0) > 1.01 * gm["head"] else "")
PY
)
grep -q 'CHECK: 146/146' $OUT/check-vsm.txt && grep -q 'CHECK: 256/256' $OUT/rising.txt || [ "$pick" != vsm ] || pick=
echo "picked: ${pick:-none}"
