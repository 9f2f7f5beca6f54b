# The twenty-seventh session's third call: `bash docs/kernels/sm90_lab/s33_run2.sh`, `carry:
# [".whlx", ".lab44/so.tar.xz"]` (.lab44 by `bash docs/kernels/sm90_lab/build.sh .lab44
# docs/kernels/sm90_lab/s33_ns.patch docs/kernels/sm90_lab/s33_nx.patch`), timeout_s 240.
# px4 and px8 (s33_run1.sh) lost 6-10% at d = 64: moving exponentials off the MUFU pipe only cost
# issue slots. Two probes with wrong output, timed only (no checks), say what the steady state's
# other per-score instructions cost at d = 64:
#   ns   the row sums add only each row's first column pair (63 of 64 FADDs a row gone);
#   nx   no exponential at all (the MUFU.EX2 gone, the rest as it is).
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab4x && tar -C .lab4x -xJf .lab44/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-150} WHEELS=.whl LAB=.lab4x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  bench2 64 25 ns nx
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
