#!/usr/bin/env python3
"""Writes scenarios/gemm/scenarios.textproto: the gemm scenarios (C = A . B).

Run from anywhere: python3 scenarios/generate_gemm.py [--output PATH]
The output is committed; tests/problem checks it matches what this script writes.

A is [m, k], B is [k, n], C is [m, n], all row-major. Why each group exists:

square (10): m = n = k in {512, 1024, 2048, 4096, 8192}, bf16 and fp16: the
  sizes GEMM libraries and papers report, from launch-bound to compute-bound.

llm (24): the linear layers of two common LLMs at three token counts, bf16
  (what they run in). m is the number of tokens, k the layer's input features,
  n its output features (the weight as [in, out]; nn.Linear stores [out, in]
  and computes x W^T, the same FLOPs with B transposed).
  - Llama-3 8B: hidden 4096, 32 query and 8 K/V heads of 128, MLP 14336.
  - Llama-3 70B: hidden 8192, 64 query and 8 K/V heads of 128, MLP 28672.
  Per model: fused QKV (hidden -> hidden + 2 * 8 * 128), attention output
  (hidden -> hidden), fused MLP gate and up (hidden -> 2 * MLP) and MLP down
  (MLP -> hidden). Tokens: 16 (a decode batch: memory-bound, a GEMV in all
  but name), 1024 and 4096 (prefill chunks: compute-bound).

ragged (40): the shapes fast kernels get wrong, both dtypes: sizes that are
  multiples of no tile size (1, 3, 7, 17, 113, 1023, 4097, ...), tails in only
  one of m, n, k, multiples of 16 or 64 that are not multiples of 64 or 128,
  one-element outputs, single rows and columns (m = 1, n = 1) and k = 1. Each
  is small enough that the fp32 reference takes milliseconds. Half of them
  (every second shape, alternating with the dtype) use hidden seeds: the
  worker derives their inputs from a key the kernel's author never sees, so a
  kernel cannot be tuned to known inputs. A one-element output only comes with
  a small k: there the tolerance bar is set by the rounding of one element,
  and a small k keeps the fp32 summation-order difference far below atol.
"""

import argparse
import hashlib
import os
import sys

DTYPES = [("bf16", "DTYPE_BF16"), ("f16", "DTYPE_F16")]
SQUARE_SIZES = [512, 1024, 2048, 4096, 8192]
LLM_TOKENS = [16, 1024, 4096]
# (model, hidden, query heads, K/V heads, head dim, MLP width)
LLM_MODELS = [
    ("llama3-8b", 4096, 32, 8, 128, 14336),
    ("llama3-70b", 8192, 64, 8, 128, 28672),
]

# (m, n, k); each runs in both dtypes.
RAGGED = [
    (1, 1, 1),          # one element, k = 1: nothing to accumulate
    (1, 1, 17),         # one element, a short k tail
    (2, 3, 5),          # smaller than any tile in every dimension
    (7, 13, 1),         # k = 1: the k loop runs once, partially
    (3, 1, 4097),       # n = 1: a matrix-vector product with a long k
    (1, 4099, 1531),    # m = 1: a row vector times a matrix
    (4097, 1, 511),     # n = 1 with a long m
    (17, 33, 65),       # one past a power of two everywhere
    (113, 799, 203),    # no common factor with any tile
    (127, 129, 255),    # one short of, and one past, tile multiples
    (1023, 1025, 1027), # tails of 1023 / 1 / 3 past 1024
    (129, 256, 256),    # a tail in m only
    (256, 257, 256),    # a tail in n only
    (256, 256, 130),    # a tail in k only
    (80, 208, 96),      # multiples of 16, not of 64
    (192, 320, 448),    # multiples of 64, not of 128
    (2049, 2047, 129),  # large, with tails everywhere
    (5, 8191, 3),       # wide and shallow
    (3001, 17, 4093),   # tall, narrow and deep
    (1000, 1000, 1000), # a round number that is no power of two
]


def seed_for(scenario_id):
    """A recorded seed that depends only on the id, so regenerating is stable."""
    seed = int.from_bytes(hashlib.sha256(scenario_id.encode()).digest()[:8], "little")
    return (seed & ((1 << 63) - 1)) or 1


def scenario(sid, set_name, dtype_enum, m, n, k, hidden, note):
    seed = "hidden_seed: true" if hidden else "seed: %d" % seed_for(sid)
    return ("scenario {\n"
            '  id: "%s" set: "%s" dtype: %s\n'
            '  symbol { name: "m" value: %d } symbol { name: "n" value: %d } '
            'symbol { name: "k" value: %d }\n'
            "  %s\n"
            '  note: "%s"\n'
            "}\n") % (sid, set_name, dtype_enum, m, n, k, seed, note)


def square():
    return [scenario("sq-%s-%d" % (dtype, s), "square", enum, s, s, s, False, "square")
            for dtype, enum in DTYPES for s in SQUARE_SIZES]


def llm():
    out = []
    for model, hidden, heads, kv_heads, head_dim, mlp in LLM_MODELS:
        layers = [
            ("qkv", hidden, hidden + 2 * kv_heads * head_dim),
            ("o", hidden, heads * head_dim),
            ("gateup", hidden, 2 * mlp),
            ("down", mlp, hidden),
        ]
        for tokens in LLM_TOKENS:
            for layer, k, n in layers:
                sid = "llm-%s-%s-t%d" % (model, layer, tokens)
                out.append(scenario(sid, "llm", "DTYPE_BF16", tokens, n, k, False,
                                    "%s %s projection, %d tokens" % (model, layer, tokens)))
    return out


def ragged():
    out = []
    for i, (m, n, k) in enumerate(RAGGED):
        for j, (dtype, enum) in enumerate(DTYPES):
            sid = "rag-%s-m%d-n%d-k%d" % (dtype, m, n, k)
            out.append(scenario(sid, "ragged", enum, m, n, k, (i + j) % 2 == 1, "ragged tail"))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=os.path.join(here, "gemm", "scenarios.textproto"))
    args = parser.parse_args()
    groups = [("square", square(), 10), ("llm", llm(), 24), ("ragged", ragged(), 40)]
    for name, group, want in groups:
        if len(group) != want:
            sys.exit("generator bug: %d %s scenarios, want %d" % (len(group), name, want))
    header = ("# Generated by scenarios/generate_gemm.py; do not edit.\n"
              "# See that script's docstring for why each group exists.\n"
              "# proto-file: proto/problem.proto\n"
              "# proto-message: kernelseek.v1.ScenarioFile\n\n"
              'problem: "gemm"\n')
    titles = {
        "square": "square: m = n = k, 512 to 8192",
        "llm": "llm: Llama-3 8B and 70B projections at 16, 1024 and 4096 tokens",
        "ragged": "ragged: sizes that are multiples of no tile, half with hidden seeds",
    }
    with open(args.output, "w") as f:
        f.write(header)
        for name, group, want in groups:
            f.write("\n# %s (%d)\n" % (titles[name], want))
            f.writelines(group)


if __name__ == "__main__":
    main()
