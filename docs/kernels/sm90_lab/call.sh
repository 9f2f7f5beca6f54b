# Sourced from the repository root by a device-call script that carries .whlx (wheelx.py's
# xz-packed fa3-fwd and cudnn-frontend wheels) and .lab12 (the bundle and the committed file):
#   wheels        unpacks .whlx into .whl (fa3-fwd, for lab.sh) and .whl2 (cudnn-frontend), where
#                 s15_run3.sh looks for them;
#   figure        packs the lab's files in $OUT into $OUT/lab.tgz, then runs s15_run3.sh (verify
#                 --scenarios all and the bench with fa3 and cudnn, through the bundle) into
#                 /tmp/fig and brings back its verify and bench reports and results.tgz: a call
#                 returns at most 8 files. NODE_SECONDS (default 420) bounds the node run.
CALL_ROOT=$PWD

wheels() {
  python3 docs/kernels/sm90_lab/wheelx.py unpack .whlx/*.whl.tar.xz /tmp/wheels > /dev/null &&
    mkdir -p .whl .whl2 && mv /tmp/wheels/fa3*.whl .whl/ && mv /tmp/wheels/*.whl .whl2/
}

figure() {
  (cd "$OUT" && ls | grep -v -e '^lab.tgz$' | tar -czf lab.tgz -T - && ls | grep -v '^lab.tgz$' | xargs rm -f)
  mkdir -p /tmp/fig && cd "$CALL_ROOT" &&
    OUT=/tmp/fig NODE_SECONDS=${NODE_SECONDS:-420} bash docs/kernels/sm90_lab/s15_run3.sh
  cp /tmp/fig/02-verify.txt /tmp/fig/03-bench.txt /tmp/fig/results.tgz "$OUT"/
}
