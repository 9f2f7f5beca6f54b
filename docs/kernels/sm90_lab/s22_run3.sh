# Twenty-first session, device call 5 (`carry: [".whl", ".lab24/so.tar.xz"]`), built by
#   bash docs/kernels/sm90_lab/build.sh .lab24 docs/kernels/sm90_lab/s22_mx2.patch \
#     docs/kernels/sm90_lab/s22_mx256.patch docs/kernels/sm90_lab/s22_lm64.patch
# (head = the committed file: mx1 at d = 64, lm; mx2 = d = 64's masked copy two blocks past the
# mask; mx256 = mx1 at d = 256 too; lm64 = the list walk, d = 64 causal s >= 4096, max first too):
# checks, then two bench passes at d = 64 (head, mx2, lm64) and 256 (head, mx256).
# Then, if the machine is an H200, the figure (s15_run3.sh, `carry: [".lab12", ".whl2"]`).
mkdir -p .lab24x && tar -C .lab24x -xJf .lab24/so.tar.xz || exit 1
WHEELS=.whl LAB=.lab24x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check mx2 mx256 lm64
bench1 1 64 head mx2 lm64
bench1 1 256 head mx256
bench1 2 64 lm64 mx2 head
bench1 2 256 mx256 head
summary d64-1 d64-2 d256-1 d256-2
