# The twenty-eighth session's first call: `bash docs/kernels/sm90_lab/s34_run1.sh`, `carry:
# [".whlx", ".lab46/so.tar.xz", ".lab46/sm90_sv.cu", ".lab46/sm90_sv72.cu", ".lab12"]`,
# timeout_s 560. s33_run3.sh (sv and sv72 checked, then two d = 64 passes against
# FA3, interleaved with head), then, where one of them beats head by 1.5% or more over d = 64's
# 12 scenarios in both passes (the better of the two by its worse pass), that file's figure
# through the bundle (verify --scenarios all, the perf bench against FA3 and cuDNN), so that a
# winner's figure needs no second machine start. .lab46 by `bash docs/kernels/sm90_lab/build.sh
# .lab46 docs/kernels/sm90_lab/s33_sv.patch docs/kernels/sm90_lab/s33_sv72.patch`. With little
# device time left, `VERIFY_ONLY=1 NODE_SECONDS=200 bash ...`: the winner's verify alone.
bash docs/kernels/sm90_lab/s33_run3.sh | tee /tmp/lab.txt
source docs/kernels/sm90_lab/call.sh  # figure(); s33_run3.sh has unpacked the wheels
# The winner: each variant's "all" over head's, the worse of the two passes; the best such, if
# 1.015 or more.
win=$(awk '
  /^== / { pass++ }
  /^region/ { for (i = 3; i <= NF; i++) col[i] = $i }
  /^all/ { for (i = 3; i <= NF; i++) g[pass, col[i]] = $i; for (i = 3; i <= NF; i++) names[col[i]] = 1 }
  END {
    best = ""; bestr = 1.015
    for (n in names) {
      if (n == "sm90_head" || n == "fa3") continue
      r = 10
      for (p = 1; p <= pass; p++) { if (!((p, n) in g) || !((p, "sm90_head") in g)) { r = 0; break }
        x = g[p, n] / g[p, "sm90_head"]; if (x < r) r = x }
      printf "%s over head, worse pass: %.3f\n", n, r > "/dev/stderr"
      if (r >= bestr) { bestr = r; best = n }
    }
    sub(/^sm90_/, "", best); print best
  }' /tmp/lab.txt)
echo "WINNER: ${win:-none}"
if [ -n "$win" ]; then
  cp .lab46/sm90_$win.cu .lab12/sm90.cu && NODE_SECONDS=${NODE_SECONDS:-330} figure &&
    tail -4 $OUT/0[23]-*.txt
fi
