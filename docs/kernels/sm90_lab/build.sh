# build.sh LAB PATCH...: the lab's kernels, built here (no GPU) from the committed sm90.cu.
# Writes LAB/sm90_head.cu (the committed file) and LAB/sm90_V.cu for each PATCH (V is the
# patch's name after its session prefix: s18_vs.patch -> vs), builds each into LAB/sm90_V.so for
# sm_90a with ptxas's resource report in LAB/V.log, prints per build the spills, the kernels
# whose wgmma ptxas says it serialized (C7512, C7513, C7514: "Potential Performance Loss:
# wgmma") and those whose SASS waits on wgmma more than 8 times (cuobjdump; the committed file's
# wait 6 times), and packs the .so files into LAB/so.tar.xz for a device call (`carry: [".whl",
# "LAB"]`; the call unpacks it, as s17_run9.sh does).
# Run from the repository root: bash docs/kernels/sm90_lab/build.sh .lab18 docs/kernels/sm90_lab/s18_*.patch
set -o pipefail
lab=${1:?usage: build.sh LAB PATCH...}
shift
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$lab" || exit 1
cp kernels/attention_fwd/sm90.cu "$lab/sm90_head.cu" || exit 1
names=(head)
for patch in "$@"; do
  v=$(basename "$patch" .patch)
  v=${v#s[0-9]*_}
  patch -s -o "$lab/sm90_$v.cu" kernels/attention_fwd/sm90.cu "$patch" || { echo "$patch does not apply"; exit 1; }
  names+=("$v")
done
for v in "${names[@]}"; do
  # One build at a time: this machine has two cores.
  if ! "$nvcc" -gencode=arch=compute_90a,code=sm_90a -O3 -Xptxas -v -shared -Xcompiler -fPIC \
      -o "$lab/sm90_$v.so" "$lab/sm90_$v.cu" > "$lab/$v.log" 2>&1; then
    echo "$v: build failed, see $lab/$v.log"
    exit 1
  fi
  spills=$(grep -o '[0-9]* bytes spill stores' "$lab/$v.log" | sort -n | tail -1)
  # Until the twentieth session this looked for C7513 alone and missed fb's C7514 (every HGMMA
  # of 12 kernels with a WARPGROUP.DEPBAR of its own, 31-41% slower); the SASS count checks it.
  serial=$(command -v cuobjdump > /dev/null && cuobjdump -sass "$lab/sm90_$v.so" | awk '
    /Function :/ { k = $3 } /HGMMA/ { h[k]++ } /WARPGROUP.DEPBAR/ { w[k]++ }
    END { n = 0; for (k in h) if (w[k] > 8) n++; print n }')
  printf '%-6s most spill stores in one kernel: %s; wgmma serialized (ptxas): %s; over 8 wgmma waits (SASS): %s\n' \
    "$v" "${spills:-none}" "$(grep -c 'Potential Performance Loss: wgmma' "$lab/$v.log")" \
    "${serial:-? (no cuobjdump)}"
done
tar -C "$lab" -cJf "$lab/so.tar.xz" $(printf 'sm90_%s.so ' "${names[@]}") || exit 1
echo "packed $(du -h "$lab/so.tar.xz" | cut -f1) into $lab/so.tar.xz"
