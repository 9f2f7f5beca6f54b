"""A numpy model of one warp's 16 query rows through sm90.cu's stale-max softmax, block by block
in the kernel's order (highest keys first), each row held by four threads as the wgmma layout
holds it (thread t of a quad: columns 8 nn + 2 t and + 1):
  head  the committed step: each thread's row max, the warp's vote on a rise of more than
        2^8 over the kept max, then the exponentials;
  vs    the exponentials under the kept max at once; the warp's vote on this thread's part of
        each row's sum (over 2^8) and on rows with no key yet; where it fires, head's step again
        from the scores (s18_vs.patch).
Checks that vs gives head's bits (O and LSE) and that both match an exact softmax, on normal
scores, scores that rise toward the keys walked last (by 400, 40 or 5 log2 units a block), and
causal rows whose first keys come blocks later, walking a causal tile's blocks from its
diagonal down as the kernel does. Exits 1 if any case differs. Last, how often the vote fires
on normal inputs (the perf set's kind).

  python3 vote_model.py     (numpy; no GPU)
"""
import sys

import numpy as np

F = np.float32
BLOCK_N = 128
MAX_STALE_LOG2 = F(8.0)


def thread_parts(s):
    """[16, BLOCK_N] -> [16, 4, BLOCK_N / 4]: each row's columns as its quad's threads hold them."""
    return np.stack([np.concatenate([s[:, 8 * n + 2 * t: 8 * n + 2 * t + 2]
                                     for n in range(BLOCK_N // 8)], 1) for t in range(4)], 1)


def columns(e):
    """The inverse of thread_parts."""
    p = np.zeros((16, BLOCK_N), F)
    for t in range(4):
        for n in range(BLOCK_N // 8):
            p[:, 8 * n + 2 * t: 8 * n + 2 * t + 2] = e[:, t, 2 * n: 2 * n + 2]
    return p


def scaled_max(m, scale_log2):
    return np.where(m == -np.inf, F(0), m * scale_log2).astype(F)


def head_step(sp, st, scale_log2):
    """StaleMaxStep and the exponentials. sp: [16, 4, 32] scores; st: row_max [16], row_sum
    [16, 4] (per thread), o [16, d]. Returns the exponentials and whether the max was raised."""
    row_max = st['row_max']
    mx = np.maximum(sp.max(2), row_max[:, None])
    raise_max = bool((mx > (row_max + F(MAX_STALE_LOG2 / scale_log2))[:, None]).any())
    if raise_max:
        m = mx.max(1)
        m_scaled = scaled_max(m, scale_log2)
        correction = np.exp2(row_max * scale_log2 - m_scaled).astype(F)
        st['row_max'] = m
    else:
        m_scaled, correction = scaled_max(row_max, scale_log2), np.ones(16, F)
    e = np.exp2(sp * scale_log2 - m_scaled[:, None, None]).astype(F)
    st['row_sum'] = (st['row_sum'] * correction[:, None] + e.sum(2, dtype=F)).astype(F)
    st['o'] = (st['o'] * correction[:, None]).astype(F)
    return e, raise_max


def vs_step(sp, st, scale_log2):
    """Returns the exponentials and whether the vote fired (head's step taken again)."""
    with np.errstate(over='ignore'):  # scores far over the kept max: inf, and the vote fires
        e = np.exp2(sp * scale_log2 - scaled_max(st['row_max'], scale_log2)[:, None, None])
    e = e.astype(F)
    blk = e.sum(2, dtype=F)
    keep = bool((blk <= F(2) ** MAX_STALE_LOG2).all() and (st['row_max'] != -np.inf).all())
    if not keep:
        return head_step(sp, st, scale_log2)[0], True
    st['row_sum'] = (st['row_sum'] + blk).astype(F)
    return e, False


def visible(s_q, s_k, row0, causal):
    """Per row, how many keys it sees (bottom-right causal alignment)."""
    rows = row0 + np.arange(16)
    return np.minimum(s_k, rows + s_k - s_q + 1) if causal else np.full(16, s_k)


def attention(q, k, v, s_q, row0, causal, step):
    """O, LSE, how many steady-state blocks the step reported (raised or voted), and how many
    steady-state blocks there were."""
    s_k, d = k.shape
    scale_log2 = F(np.log2(np.e) / np.sqrt(d))
    st = {'row_max': np.full(16, -np.inf, F), 'row_sum': np.zeros((16, 4), F),
          'o': np.zeros((16, v.shape[1]), F)}
    limit = visible(s_q, s_k, row0, causal)
    reported = 0
    blocks = (s_k + BLOCK_N - 1) // BLOCK_N
    if causal:
        # As the kernel's KvBlocks: the blocks some row of the 128-row tile holding these rows
        # sees (so the first block walked is the tile's diagonal).
        last_row = min(row0 // 128 * 128 + 128, s_q) - 1
        blocks = min(blocks, max(0, (last_row + s_k - s_q) // BLOCK_N + 1))
    for i, n in enumerate(range(blocks - 1, -1, -1)):
        kb = np.zeros((BLOCK_N, d), F)
        vb = np.zeros((BLOCK_N, v.shape[1]), F)
        kb[:min(BLOCK_N, s_k - n * BLOCK_N)] = k[n * BLOCK_N:(n + 1) * BLOCK_N]
        vb[:min(BLOCK_N, s_k - n * BLOCK_N)] = v[n * BLOCK_N:(n + 1) * BLOCK_N]
        s = (q @ kb.T).astype(F)
        s[(n * BLOCK_N + np.arange(BLOCK_N))[None, :] >= limit[:, None]] = -np.inf
        # The kernel's first block of a tile always takes head's step.
        e, fired = (head_step if i == 0 else step)(thread_parts(s), st, scale_log2)
        reported += fired and i > 0
        st['o'] = (st['o'] + columns(e) @ vb).astype(F)
    total = st['row_sum'].sum(1)
    seen = total > 0
    o = np.where(seen[:, None], st['o'] / np.where(seen, total, 1)[:, None], 0).astype(F)
    lse = np.where(seen, (st['row_max'] * scale_log2 + np.log2(np.where(seen, total, 1)))
                   * np.log(2), -np.inf)
    return o, lse, reported, max(blocks - 1, 0)


def exact(q, k, v, s_q, row0, causal):
    s_k, d = k.shape
    s = (q.astype(np.float64) @ k.T.astype(np.float64)) / np.sqrt(d)
    s[np.arange(s_k)[None, :] >= visible(s_q, s_k, row0, causal)[:, None]] = -np.inf
    m = s.max(1)
    seen = np.isfinite(m)
    p = np.exp(s - np.where(seen, m, 0)[:, None])
    total = p.sum(1)
    o = np.where(seen[:, None], p @ v / np.where(seen, total, 1)[:, None], 0)
    return o, np.where(seen, m + np.log(np.where(seen, total, 1)), -np.inf)


def main():
    rng = np.random.default_rng(0)
    cases = bad = 0
    # (s_q, s_k, the first of the 16 rows): the last rows of a tile; rows whose first keys come
    # blocks later (s_q > s_k causal); rows split inside the warp between the two
    shapes = ((16, 1000, 0), (16, 16, 0), (300, 1000, 284), (1000, 300, 984),
              (1000, 300, 1000 - 300 + 92), (1000, 300, 1000 - 300 + 113), (16, 4096, 0))
    inputs = (('normal', 0), ('rise-first', 400), ('rise-first', 40), ('rise-mild', 5),
              ('rise-last', 400), ('flat', 0))
    for d in (64, 128):
        for causal in (False, True):
            for s_q, s_k, row0 in shapes:
                for kind, units in inputs:
                    q = rng.standard_normal((16, d)).astype(F)
                    k = rng.standard_normal((s_k, d)).astype(F)
                    v = rng.standard_normal((s_k, d)).astype(F)
                    if kind != 'normal':
                        # Scores q.k / sqrt(d) that climb `total` log2 units across the keys.
                        q = (1 + 0.01 * rng.standard_normal((16, d))).astype(F)
                        total = {'rise-first': -units, 'rise-mild': -units * s_k / BLOCK_N,
                                 'rise-last': units, 'flat': 0}[kind]
                        ramp = np.linspace(0, total / np.log2(np.e) / np.sqrt(d), s_k)
                        k = (ramp[:, None] + 0.01 * rng.standard_normal((s_k, d))).astype(F)
                    ho, hl, raised, _ = attention(q, k, v, s_q, row0, causal, head_step)
                    vo, vl, voted, _ = attention(q, k, v, s_q, row0, causal, vs_step)
                    ro, rl = exact(q, k, v, s_q, row0, causal)
                    same = np.array_equal(ho, vo) and np.array_equal(hl, vl)
                    err = np.abs(vo - ro).max() / max(np.abs(ro).max(), 1e-30)
                    inf_ok = np.array_equal(np.isinf(vl), np.isinf(rl))
                    lse_err = np.max(np.abs(np.where(np.isfinite(rl), vl - rl, 0)))
                    ok = same and err < 1e-3 and inf_ok and lse_err < 1e-3
                    cases += 1
                    bad += not ok
                    print(f"{'ok ' if ok else 'BAD'} d{d} causal={int(causal)} s_q={s_q} s_k={s_k} "
                          f"rows {row0}-{row0 + 15} {kind} {units}: head raised {raised}, vs voted "
                          f"{voted}, same bits {same}, O err {err:.1e}, LSE err {lse_err:.1e}")
    print(f"{cases - bad}/{cases} cases: vs gives head's bits and the exact softmax")
    print(perf_like_votes(rng))
    return 1 if bad else 0


def perf_like_votes(rng):
    """How often head raises its max and vs votes on the perf set's kind of input (Q, K, V
    normal), over steady-state blocks of rows at random places in their tiles: the redo's
    expected cost there."""
    raised = voted = blocks = 0
    for d in (64, 128, 256):
        for s in (512, 2048, 16384):
            for causal in (False, True):
                for _ in range(3):
                    row0 = int(rng.integers(0, s - 16)) if causal else 0
                    q = rng.standard_normal((16, d)).astype(F)
                    k = rng.standard_normal((s, d)).astype(F)
                    v = rng.standard_normal((s, 8)).astype(F)
                    raised += attention(q, k, v, s, row0, causal, head_step)[2]
                    _, _, fired, steady = attention(q, k, v, s, row0, causal, vs_step)
                    voted += fired
                    blocks += steady
    return (f"normal inputs (d 64/128/256, s 512/2048/16384, causal and not): head raised its max in "
            f"{raised} and vs voted in {voted} of {blocks} steady-state blocks")


if __name__ == '__main__':
    sys.exit(main())
