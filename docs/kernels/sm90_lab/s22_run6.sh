# Twenty-first session, device call 8 (`carry: [".whl", ".lab26/so.tar.xz", ".lab22/so.tar.xz"]`),
# built by
#   bash docs/kernels/sm90_lab/build.sh .lab26 docs/kernels/sm90_lab/s22_fx.patch \
#     docs/kernels/sm90_lab/s22_t12.patch
# Call 7 (ncu) saw the vote's kernel on long causal inputs wait at the consumers' turn barrier.
# A guess at why: a diagonal tile's top rows keep a max from few keys, their sums pass 2^8
# block after block while no score does, so the vote fires and StaleMaxStep keeps the max, and
# the same warp fires again next block (fires.py: 93-99% of firings raise nothing). Both
# variants put the vote back in the list walk (no lm): fx = a firing takes the block's max
# (any rise), t12 = the vote's bound on the sums 2^12 instead of 2^8. head = the committed file
# (lm), vl = .lab22's head (the vote in the list walk as it was). Checks and rising.py, then
# bench passes at d = 128 (two), 64 and 256.
mkdir -p .lab26x /tmp/lab22 && tar -C .lab26x -xJf .lab26/so.tar.xz && tar -C /tmp/lab22 -xJf .lab22/so.tar.xz &&
  cp /tmp/lab22/sm90_head.so .lab26x/sm90_vl.so || exit 1
WHEELS=.whl LAB=.lab26x source docs/kernels/sm90_lab/lab.sh || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
check fx t12
timeout 60 python3 rising.py $L/sm90_fx.so $L/sm90_t12.so > $OUT/rising.txt 2>&1; grep -E "BAD|CHECK" $OUT/rising.txt | tail -4
bench1 1 128 head fx t12 vl
bench1 1 64 head fx t12
bench1 1 256 head fx t12
bench1 2 128 vl t12 fx head
summary d128-1 d64-1 d256-1 d128-2
