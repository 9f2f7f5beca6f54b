# Seventh session, device calls 3a and 3b: FA4 on the H200. The 88 MB nvidia-cutlass-dsl-libs-cu13
# wheel does not fit one call's 64 MiB: 3a carries its first 44,000,000 bytes (and the
# nvidia-cudnn-frontend wheel) and copies them to /tmp; 3b, on the still-warm machine, carries the
# rest and the other FA4 wheels, joins the wheel (checked by sha256), installs everything into a
# wheel site stamped as kseek-worker stamps it, and runs the checks.
#   3a: bash docs/kernels/sm90_lab/s7_run3.sh a   (carry: [".whl4a"])
#   3b: bash docs/kernels/sm90_lab/s7_run3.sh b   (carry: [".whl4b"])
set -o pipefail
if [ "$1" = a ]; then
  mkdir -p /tmp/fa4 && cp .whl4a/* /tmp/fa4/ && ls -la /tmp/fa4
  exit
fi
w=/tmp/fa4/nvidia_cutlass_dsl_libs_cu13-4.7.1-cp312-cp312-manylinux_2_28_x86_64.whl
cat /tmp/fa4/cu13.part1 .whl4b/cu13.part2 > $w || exit 1
[ "$(sha256sum $w | cut -c1-64)" = "$(cat .whl4b/cu13.sha256)" ] || { echo "joined wheel: sha256 mismatch"; exit 1; }
cp .whl4b/*.whl /tmp/fa4/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site /tmp/fa4/*.whl 2>&1 | tail -3
touch /tmp/site/.kseek-wheels   # the stamp worker/wheel_site.cc writes; add_wheel_sites looks for it
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
python3 worker/baselines/attention_fwd_baseline.py --probe | tee $OUT/probe.json
cd docs/kernels/sm90_lab
timeout 300 python3 fa4_check.py 2>&1 | tee $OUT/fa4-check.txt | grep -vE '^\s+File|^\s{4}'
timeout 150 python3 baseline_check.py - ../../../worker/baselines/attention_fwd_baseline.py=graph \
  --backends=fa4,cudnn --shapes=128:1:8192,64:0:2048 2>&1 | tee $OUT/baseline-fa4.txt
