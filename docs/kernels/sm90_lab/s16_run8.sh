# Sixteenth session, device call 8 (`carry: [".whl", ".lab16"]`): run 7's timeline put a step at
# about 2590 cycles where both consumers' products need 2048, with each consumer's softmax at
# 1150-1400 cycles and 370 more from P V done to the next step (packing P among them). Against
# head (the committed file, sm90_new):
#   ip  the stale-max softmax (d >= 128) as FA3's loop orders it: the vote decides the max only
#       (no copy of the exponentials per outcome), row 0's exponentials, the wait for P V, then
#       row 1's exponentials with P's packing interleaved by ptxas (row 1's max made to depend
#       on O, 0 x O[0], so that ptxas keeps them below the wait), O's rescale when voted.
#       SASS: the d = 128 loop 689 -> 495 instructions, 35 MUFU before the P V wait, the 32
#       F2FP among the other 32.
# d = 128 and 256 (d = 64 runs the other softmax: its kernels are head's), twice, bf16,
# interleaved with FA3.
WHEELS=.whl LAB=.lab16 source docs/kernels/sm90_lab/lab.sh || exit 1
check new ip
bench "new ip" 128 256
summary d128-1 d128-2 d256-1 d256-2
