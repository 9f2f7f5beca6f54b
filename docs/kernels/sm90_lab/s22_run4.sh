# Twenty-first session, device call 6 (`carry: [".whl", ".lab25/so.tar.xz", ".lab22/so.tar.xz"]`),
# built by
#   bash docs/kernels/sm90_lab/build.sh .lab25 docs/kernels/sm90_lab/s22_vu.patch
# Where does the vote lose on long causal inputs at d = 128? head = the committed file (the list
# walk, max first); vl = .lab22's head (the list walk with the vote, the file before lm); vu =
# head without the pool at d = 128 (round-robin and the tail launch, both with the vote). Two
# bench passes at d = 128, the order turned between them.
mkdir -p .lab25x /tmp/lab22 && tar -C .lab25x -xJf .lab25/so.tar.xz && tar -C /tmp/lab22 -xJf .lab22/so.tar.xz &&
  cp /tmp/lab22/sm90_head.so .lab25x/sm90_vl.so || exit 1
WHEELS=.whl LAB=.lab25x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check vu
bench1 1 128 head vl vu
bench1 2 128 vu vl head
summary d128-1 d128-2
