#!/usr/bin/env python3
"""Writes scenarios/attention_fwd/scenarios.textproto: the 202 attention_fwd scenarios.

Run from anywhere: python3 scenarios/generate_attention_fwd.py [--output PATH]
The output is committed; tests/runner checks it matches what this script writes.

Why each group exists:

perf (72): the FlashAttention-3 paper's forward benchmark grid, so our numbers
  line up with published ones: batch x seqlen = 16384 tokens, hidden 2048
  (h = h_kv = 2048 / d), d in {64, 128, 256}, seqlen in {512, 1k, 2k, 4k, 8k,
  16k}, causal and not, bf16 and fp16. Seeds are recorded so a benchmark can be
  replayed exactly.

correctness (110): the cases fast kernels get wrong, each small enough that the
  fp32 reference runs in milliseconds. For every (dtype, d, causal) combination
  (2 x 5 x 2 = 20), five shapes:
  - ragged: s_q = s_k, lengths that are multiples of no tile size
    (1, 3, 113, 203, 799, 1023, 4097): partial tiles at the end of both loops;
  - s_q < s_k: the causal diagonal is offset (bottom-right alignment), so a
    kernel that aligns it top-left, or skips the wrong tiles, is caught;
  - s_q > s_k: with causal, the first s_q - s_k query rows see no key at all
    and must give O = 0, LSE = -inf (no NaN from 0/0);
  - decode (s_q = 1) against ragged K/V lengths, with batch > 1: the shape
    every decoder runs, and one where a query tile is almost empty;
  - grouped K/V heads, GQA 4:1 and 8:1 and MQA (h_kv = 1): the K/V head index
    must be head / (h / h_kv), and the K/V strides differ from Q's.
  These 100 use hidden seeds in the GQA/MQA group (the worker derives them
  from a key the kernel's author never sees), so a kernel cannot be tuned to
  known inputs. Ten more mix the hard features together (batch > 1 with long
  ragged sequences, MQA decode against 4097 keys, GQA 8:1 with s_q > s_k
  causal, ...); half of them use hidden seeds too.

rising (20): scores that climb steadily along the keys, one scenario per
  (dtype, d, causal). Q is near 1 everywhere (mean 1, std 0.1) and K holds a
  ramp along its key axis plus a little noise, so every query's scores run
  over R log2 units from one end of the keys to the other: R = 40, where a
  kernel that keeps a row max from earlier key blocks finds it stale by 2^8
  again and again, and R = 400, where a stale max overflows exp2 within one
  block and a row that saw no key before a block meets scores far above 0.
  Half the ramps climb toward key 0 (for kernels that walk the keys from the
  end), half toward the last key. The kernels these catch are exact on
  normal inputs, where a row's first keys already hold nearly its max.
  Low-precision references round such scores coarsely, so the error bar is
  loose here; NaN, infinities and unwritten elements still fail.
"""

import argparse
import hashlib
import math
import os
import sys

DTYPES = [("bf16", "DTYPE_BF16"), ("f16", "DTYPE_F16")]
HEAD_DIMS = [64, 96, 128, 192, 256]
PERF_HEAD_DIMS = [64, 128, 256]
PERF_SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]
PERF_TOKENS = 16384
PERF_HIDDEN = 2048

# Per-combination shape templates; combination c takes entry c % len(list).
RAGGED = [(2, 113), (1, 1023), (3, 203), (1, 4097), (4, 3), (2, 799), (8, 1)]
SHORTER_Q = [(113, 799), (3, 203), (203, 1023), (17, 4097), (799, 1023), (1, 113)]
LONGER_Q = [(799, 203), (1023, 113), (113, 3), (203, 1), (4097, 799), (64, 63)]
DECODE_KEYS = [1, 113, 799, 1023, 4097, 203, 3]
GROUPED = [(8, 2), (16, 2), (8, 1), (12, 3), (32, 4), (4, 1)]  # (h, h_kv)

# Ten scenarios that combine features: (b, s_q, s_k, h, h_kv, dtype, d, causal).
MIXED = [
    (3, 1023, 1023, 8, 2, "bf16", 128, True),
    (2, 4097, 4097, 2, 1, "f16", 64, True),
    (4, 1, 4097, 16, 1, "bf16", 256, False),
    (2, 799, 113, 16, 2, "f16", 96, True),
    (5, 203, 799, 8, 8, "bf16", 192, True),
    (1, 1, 1, 32, 4, "f16", 128, True),
    (2, 3, 4097, 4, 1, "bf16", 64, False),
    (6, 113, 113, 12, 4, "f16", 256, False),
    (1, 2049, 1023, 8, 1, "bf16", 96, True),
    (2, 1023, 4097, 6, 2, "f16", 192, True),
]


# rising: (b, s_q, s_k), h = 4, h_kv = 2. The full and causal scenarios of one
# (dtype, d) share a shape; across the two dtypes each shape meets both ranges
# causal and not, and the directions alternate.
RISING_SHAPES = [(1, 2048, 2048), (1, 300, 1000), (1, 300, 300), (1, 200, 50), (1, 64, 4097)]
RISING_RANGES = [40, 400]  # log2 units of score across the keys


def seed_for(scenario_id):
    """A recorded seed that depends only on the id, so regenerating is stable."""
    seed = int.from_bytes(hashlib.sha256(scenario_id.encode()).digest()[:8], "little")
    return (seed & ((1 << 63) - 1)) or 1


def scenario(sid, set_name, dtype_enum, b, s_q, s_k, h, h_kv, d, causal, hidden, note,
             fills=()):
    symbols = " ".join(
        'symbol { name: "%s" value: %d }' % (n, v)
        for n, v in (("b", b), ("s_q", s_q), ("s_k", s_k), ("h", h), ("h_kv", h_kv), ("d", d)))
    seed = "hidden_seed: true" if hidden else "seed: %d" % seed_for(sid)
    return ("scenario {\n"
            '  id: "%s" set: "%s" dtype: %s\n'
            "  %s\n"
            '  scalar { name: "causal" value: %d }\n'
            "%s"
            "  %s\n"
            '  note: "%s"\n'
            "}\n") % (sid, set_name, dtype_enum, symbols, 1 if causal else 0,
                       "".join("  %s\n" % f for f in fills), seed, note)


def name(dtype, d, causal):
    return "%s-d%d-%s" % (dtype, d, "causal" if causal else "full")


def perf():
    out = []
    for dtype, enum in DTYPES:
        for d in PERF_HEAD_DIMS:
            for s in PERF_SEQLENS:
                for causal in (False, True):
                    sid = "perf-%s-s%d" % (name(dtype, d, causal), s)
                    h = PERF_HIDDEN // d
                    out.append(scenario(sid, "perf", enum, PERF_TOKENS // s, s, s, h, h, d, causal,
                                        False, "FA3 paper forward grid"))
    return out


def correctness():
    out = []
    c = 0
    dtype_enum = dict(DTYPES)
    for dtype, enum in DTYPES:
        for d in HEAD_DIMS:
            for causal in (False, True):
                base = "cor-" + name(dtype, d, causal)
                b, s = RAGGED[c % len(RAGGED)]
                out.append(scenario("%s-ragged-b%d-s%d" % (base, b, s), "correctness", enum,
                                    b, s, s, 4, 4, d, causal, False, "ragged s_q = s_k"))
                s_q, s_k = SHORTER_Q[c % len(SHORTER_Q)]
                out.append(scenario("%s-shortq-q%d-k%d" % (base, s_q, s_k), "correctness", enum,
                                    2, s_q, s_k, 4, 2, d, causal, False, "s_q < s_k"))
                s_q, s_k = LONGER_Q[c % len(LONGER_Q)]
                out.append(scenario("%s-longq-q%d-k%d" % (base, s_q, s_k), "correctness", enum,
                                    2, s_q, s_k, 4, 4, d, causal, False,
                                    "s_q > s_k; causal leaves rows with no key"))
                s_k = DECODE_KEYS[c % len(DECODE_KEYS)]
                h_kv = 8 if c % 2 == 0 else 2
                out.append(scenario("%s-decode-b4-k%d-h8x%d" % (base, s_k, h_kv), "correctness",
                                    enum, 4, 1, s_k, 8, h_kv, d, causal, False,
                                    "decode: s_q = 1, batch > 1"))
                h, h_kv = GROUPED[c % len(GROUPED)]
                s_q, s_k = [(203, 203), (113, 799), (799, 113), (1023, 1023), (1, 4097)][c % 5]
                kind = "mqa" if h_kv == 1 else "gqa%d" % (h // h_kv)
                out.append(scenario("%s-%s-h%dx%d-q%d-k%d" % (base, kind, h, h_kv, s_q, s_k),
                                    "correctness", enum, 2, s_q, s_k, h, h_kv, d, causal, True,
                                    "grouped K/V heads (%s)" % kind.upper()))
                c += 1
    for i, (b, s_q, s_k, h, h_kv, dtype, d, causal) in enumerate(MIXED):
        sid = "cor-%s-mixed%d-b%d-q%d-k%d-h%dx%d" % (name(dtype, d, causal), i, b, s_q, s_k, h,
                                                      h_kv)
        out.append(scenario(sid, "correctness", dtype_enum[dtype], b, s_q, s_k, h, h_kv, d,
                            causal, i % 2 == 1, "features combined"))
    return out


def rising():
    out = []
    pair = 0
    for dtype, enum in DTYPES:
        for d in HEAD_DIMS:
            for causal in (False, True):
                b, s_q, s_k = RISING_SHAPES[pair % len(RISING_SHAPES)]
                toward_first = (pair + causal) % 2 == 0
                rise = RISING_RANGES[(pair // len(RISING_SHAPES) + causal) % 2]
                # Q near 1, so a key's scores are about sqrt(d) times its ramp value
                # under the default scale 1 / sqrt(d).
                top = round(rise * math.log(2) / math.sqrt(d), 4)
                ends = (top, 0) if toward_first else (0, top)
                fills = ('fill { tensor: "q" mean: 1 std: 0.1 }',
                         'fill { tensor: "k" std: 0.1 ramp { axis: 1 from: %g to: %g } }' % ends)
                sid = "rise-%s-%s-r%d-b%d-q%d-k%d" % (name(dtype, d, causal),
                                                       "first" if toward_first else "last", rise,
                                                       b, s_q, s_k)
                out.append(scenario(sid, "rising", enum, b, s_q, s_k, 4, 2, d, causal, False,
                                    "scores climb %d log2 units toward the %s key"
                                    % (rise, "first" if toward_first else "last"), fills))
            pair += 1
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output",
                        default=os.path.join(here, "attention_fwd", "scenarios.textproto"))
    args = parser.parse_args()
    perf_set = perf()
    correctness_set = correctness()
    rising_set = rising()
    if len(perf_set) != 72 or len(correctness_set) != 110 or len(rising_set) != 20:
        sys.exit("generator bug: %d perf, %d correctness and %d rising scenarios, want 72, 110, 20"
                 % (len(perf_set), len(correctness_set), len(rising_set)))
    header = ("# Generated by scenarios/generate_attention_fwd.py; do not edit.\n"
              "# See that script's docstring for why each group exists.\n"
              "# proto-file: proto/problem.proto\n"
              "# proto-message: kernelseek.v1.ScenarioFile\n\n"
              'problem: "attention_fwd"\n\n')
    with open(args.output, "w") as f:
        f.write(header)
        f.write("# perf: FlashAttention-3 paper forward grid (72)\n")
        f.writelines(perf_set)
        f.write("\n# correctness: ragged, s_q != s_k, decode, GQA/MQA, batch > 1 (110)\n")
        f.writelines(correctness_set)
        f.write("\n# rising: scores that climb along the keys, up to exp2 overflow (20)\n")
        f.writelines(rising_set)


if __name__ == "__main__":
    main()
