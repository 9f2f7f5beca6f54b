# The twenty-sixth session's last call, with 296 s of device time left (too few for the figure):
# `bash docs/kernels/sm90_lab/s32_run3.sh`, `carry: [".whlx", ".lab42/so.tar.xz", ".lab12"]`.
# The committed file (c3sp) through the bundle, `kseek verify --scenarios all` alone; then, in
# LAB_BUDGET seconds (default 70), s32_run2.sh's d = 64 variants c3k and c3kp against it.
source docs/kernels/sm90_lab/call.sh && wheels || exit 1
mkdir -p .lab42x && tar -C .lab42x -xJf .lab42/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && NODE_SECONDS=150 verify_only && tail -3 $OUT/02-verify.txt
BUDGET=${LAB_BUDGET:-70} WHEELS=.whl LAB=.lab42x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
check c3k c3kp
ok=$(passed c3k c3kp)
[ -n "$ok" ] && bench2 64 20 $ok
summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
