# Thirty-fifth session, call 5 (`carry: [".whlx", ".lab80/so.tar.xz"]`, timeout_s 120). Call 4
# (s44_run1.sh, 64-lab.tgz) showed the lab's order bias surviving the rotated interleave: at
# causal s <= 1024, where head, mp2 and mp8 run the same code, the variant later in the list read
# 1.0-1.4% faster in every pass. harness.py now shuffles each round. Three passes at d = 256 of
# the same three (checked 154/154 in call 4): head, mp2 and mp8 should now read alike at
# s <= 1024; and mp8 again at causal s = 4096 (+0.2% to +0.6% in call 4).
source docs/kernels/sm90_lab/call.sh && wheels > /dev/null || exit 1
mkdir -p .lab5x && tar -C .lab5x -xJf .lab80/so.tar.xz || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
(
  BUDGET=${LAB_BUDGET:-100} WHEELS=.whl LAB=.lab5x source docs/kernels/sm90_lab/lab.sh > /dev/null || exit 1
  room 20 && bench1 1 256 head mp2 mp8
  room 20 && bench1 2 256 mp8 mp2 head
  room 20 && bench1 3 256 head mp2 mp8
  summary $(cd $OUT && ls bench-*.txt | sed 's/^bench-//; s/\.txt$//')
)
pack_lab
