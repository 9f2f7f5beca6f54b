# For the twenty-fifth session's first call (`carry: [".whlx", ".lab12", ".lab38/so.tar.xz"]`,
# timeout_s 400; the twenty-fourth's device time ran out first):
# s28_run4.sh's lab steps (dsf, dsf16, dsf7, dso, xt against the file with p64), then the committed file (p64)
# through the bundle, verify alone (call.sh's verify_only; .lab12/sm90.cu = the committed file).
LAB_BUDGET=220 bash docs/kernels/sm90_lab/s28_run4.sh
cmp .lab12/sm90.cu kernels/attention_fwd/sm90.cu && source docs/kernels/sm90_lab/call.sh &&
  wheels && verify_only && tail -3 $OUT/02-verify.txt
