// FlashAttention forward for Hopper (sm_90a), one file, no dependency beyond
// the CUDA toolkit headers. Lab notebook: docs/kernels/attention_fwd_sm90.md.
//
// Fast path (bf16/fp16, d in {64, 96, 128, 192, 256}, 16-byte aligned rows
// of Q, K, V and O):
// a persistent grid, one CTA per multiprocessor, each CTA walking 128-row
// query tiles. Warpgroup 0 is the producer: one thread issues TMA loads of Q
// (two buffers where shared memory allows) and of K and V into a ring of
// stages, completing on mbarriers. Warpgroups 1 and 2 are consumers, 64 query
// rows each: S = Q K^T with wgmma (K from shared memory, 128-byte swizzle;
// Q too, except at d = 128, where each consumer reads its Q rows into
// registers once per tile), online softmax in exp2 with the scale folded
// in (the row max kept from earlier blocks while the scores stay within 2^8
// of it; in the blocks that need no mask the max is not even taken, a
// warp's vote on the row sums says when it must be), O += P V with wgmma
// taking P from registers. The consumers take turns issuing their
// products (pingpong on named barriers), so one's softmax runs under the
// other's products; for d >= 128 each consumer also overlaps its softmax with
// its own P V product, while d = 64, bound by the exponentials, keeps the
// softmax after both products, which measured faster there, and runs three
// consumers (192-row tiles, turn passed round three named
// barriers) except on causal inputs of up to 2048 keys. A finished tile's O
// is packed into shared memory (its own buffer, or over the V ring where no
// room is left) and written by a TMA store, which the consumers do not wait
// for (over the V ring, the producer issues it; in d = 256's tail launch, O
// goes over the consumer's own Q rows).
//
// Without a mask a work unit is one query tile; with the causal mask it is
// the pair of query tiles j and M-1-j of one (batch, head), equal in cost, so
// static round-robin is balanced and the pairs of one head share K/V in L2.
// The last wave (see "The last wave" below): on long causal inputs the last
// full round of units and the leftover form a pool of whole tiles, which the
// host deals longest first, each to the CTA free first, on lists in the
// launch's parameters, unless the host estimates the path below shorter
// (few heads, whose longest tiles outlast a CTA's share); on shorter causal
// inputs too, where the host estimates it well ahead of round-robin (few
// (batch, head) pairs, whose last round leaves most CTAs idle). Otherwise
// the leftover units run whole, or, where their tiles are long (d = 64 with
// three consumers, d = 128, and d = 256 from s = 12288 on), in a second
// launch that cuts their key blocks into equal ranges, one per CTA, and
// merges the pieces of each tile.
// d = 96 and 192 run as 128 and 256: the TMA fills the columns past d with
// zeros, which add nothing to Q K^T and produce columns of O not stored.
//
// Any other supported input (odd strides, misaligned pointers) takes a plain
// one-warp-per-row kernel: correct, slow, never on the perf grid.
//
// Only the CUDA runtime is linked: cuTensorMapEncodeTiled is fetched with
// cudaGetDriverEntryPointByVersion. <cuda.h> is included for its types only.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <queue>
#include <type_traits>
#include <utility>
#include <vector>

// The runner's ABI (worker/runner/kernel_abi.h), declared here byte for byte
// because kernels depend on nothing outside the toolkit.
#define KSEEK_ABI_VERSION 1
#define KSEEK_MAX_RANK 8
#define KSEEK_MAX_TENSORS 16
#define KSEEK_MAX_SCALARS 16

enum KseekDtype {
  KSEEK_F32 = 0,
  KSEEK_F16 = 1,
  KSEEK_BF16 = 2,
  KSEEK_F64 = 3,
  KSEEK_I32 = 4,
  KSEEK_I64 = 5,
};

typedef struct {
  void* data;
  int32_t dtype;
  int32_t rank;
  int64_t shape[KSEEK_MAX_RANK];
  int64_t stride[KSEEK_MAX_RANK];
} KseekTensor;

typedef struct {
  char name[32];
  double value;
} KseekScalar;

typedef struct {
  int32_t abi_version;
  int32_t num_tensors;
  KseekTensor tensors[KSEEK_MAX_TENSORS];
  int32_t num_scalars;
  KseekScalar scalars[KSEEK_MAX_SCALARS];
} KseekArgs;

namespace {

// Return codes of attention_fwd: non-zero means nothing was launched.
constexpr int kOk = 0;
constexpr int kErrAbi = 1;
constexpr int kErrShape = 2;
constexpr int kErrDtype = 3;
constexpr int kErrLayout = 4;
constexpr int kErrDriver = 5;
constexpr int kErrLaunch = 6;

constexpr int kBlockM = 128;       // query rows per CTA (64 per consumer warpgroup)
constexpr int kSwizzleBytes = 128; // one TMA box row: 64 half-precision columns
constexpr int kMaxSmem = 232448;  // sm_90 opt-in dynamic shared memory per block
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Tile shapes: D is the padded head dimension, kBlockN the keys per K/V
// block. Shared memory holds kQStages Q tiles and kStages (K, V) blocks; the
// consumers' registers hold O (D/2 floats per thread), S (kBlockN/2) and P
// (kBlockN/4), which bounds kBlockN: 176 for D = 128 (128 is used), 80 for
// D = 256 (64 is used).
// Layout of every tile in shared memory: 64-column chunks of 128-byte rows,
// 128-byte swizzled (the 16-byte unit u of row r sits at u ^ (r % 8)).
template <int D, int BlockN, int Rows = kBlockM>
struct TileConfig {
  static constexpr int kD = D;
  static constexpr int kBlockN = BlockN;
  static constexpr int kRows = Rows;
  static constexpr int kStages = (D == 64) ? 3 : 2;
  static constexpr int kQBytes = kRows * D * 2;
  static constexpr int kKvBytes = kBlockN * D * 2;
  // A second Q buffer lets the next tile's Q land while this one finishes,
  // where shared memory has room for it.
  static constexpr int kQStages =
      (1024 + 2 * kQBytes + 2 * kStages * kKvBytes + 8 * (4 + 4 * kStages) <= kMaxSmem) ? 2 : 1;
  static constexpr int kChunks = D / 64;  // 128-byte-wide column chunks
  // Where one Q buffer is all that fits (d = 256), each consumer's 64 rows
  // of it are loaded and released on barriers of their own, so that the
  // consumer done with Q first gets its next tile's rows without waiting for
  // the other's last S product: +0.4% to +0.6% over d = 256's perf grid in
  // four lab passes, full s <= 1024 +1.0% to +1.8% (lab qh2, H100, each pass
  // one process interleaved with FA3; docs/gpu_runs/2026-12-07/67-, 69-lab.tgz).
  static constexpr int kQParts = kQStages == 1 ? kRows / 64 : 1;
  // O leaves through shared memory and TMA stores: in a buffer of its own
  // where one fits, else over the V ring, each consumer's rows in a slot of
  // their own once every consumer has released that slot's V block; the next
  // tile's first V waits for the store to read them, its Q and first K do
  // not. At d = 256 this measured 1.8% faster than staging O in
  // the Q buffer (3-5% causal s <= 1024), since the next tile's Q no longer
  // waits for the store (H100, s25 run 1). There the producer issues the store
  // once the consumers have written O (one more barrier, o_full) and waits for
  // its read, so that the consumers go on to the next tile: 0.9% faster at
  // d = 256 than the consumers storing O and waiting for the read themselves,
  // 3000 and 1800 cycles of a 26000-cycle tile at s = 512 (H100, s26 calls 6, 7).
  // Each consumer's rows over a slot of their own, with an o_full each, in
  // place of both in the first slot after a 256-thread barrier: 0.1-1.3%
  // faster over d = 256's perf grid in four passes, its regions at s <= 1024
  // from -1.3% to +3.0% (lab oc, s40, H100, each pass one process,
  // interleaved with FA3).
  static constexpr int kRingBarrierBytes = 8 * (2 * kQStages * kQParts + 4 * kStages);  // full, empty
  static constexpr bool kOwnOBuffer =
      1024 + (kQStages + 1) * kQBytes + 2 * kStages * kKvBytes + kRingBarrierBytes <= kMaxSmem;
  static_assert(kOwnOBuffer || kStages * kKvBytes >= kQBytes, "O does not fit over the V ring");
  // and one o_full per consumer
  static constexpr int kBarrierBytes = kRingBarrierBytes + (kOwnOBuffer ? 0 : 8 * (kRows / 64));
  static_assert(kOwnOBuffer || (kStages == kRows / 64 && 64 * D * 2 <= kKvBytes),
                "each consumer's O rows take a V slot of their own");
  // Staged O's 64-column chunks lie this far apart: the consumers' rows
  // interleaved in each chunk of the own buffer, one consumer's alone in a V
  // slot.
  static constexpr int kOChunkBytes = (kOwnOBuffer ? kRows : 64) * kSwizzleBytes;
  // d = 64: 16 KB of ones, read as V's columns 64-71 (one 64-column chunk
  // of kBlockN rows, past the ring), so that P V (n = 72, PvSumWgmma) also
  // gives each row's sum.
  static constexpr int kOnesBytes = D == 64 ? kBlockN * kSwizzleBytes : 0;
  static constexpr int kSmemBytes = 1024 + (kQStages + (kOwnOBuffer ? 1 : 0)) * kQBytes +
                                    2 * kStages * kKvBytes + kOnesBytes + kBarrierBytes;
  static_assert(kSmemBytes <= kMaxSmem, "tile does not fit in shared memory");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256, "kBlockN must be a wgmma N and k16 multiple");
};

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31 as a multiply-high, an add and a
// shift (Granlund and Montgomery's round-up multiplier), with the multiplier
// and shift from the host. The tile walk divides by runtime counts at every
// tile, the producer at every K and V block, and a `/` by a runtime value is
// a chain of about 20 instructions: with it the kernels ran 3.4-3.7% slower
// at d = 64, 1.6-1.9% at d = 128 and 0.3-0.8% at d = 256 (lab fd, s37, H100,
// each pass one process, interleaved with FA3).
struct FastDiv {
  uint32_t mul, shift;
  static FastDiv By(int d) {
    uint32_t shift = 0;
    while ((uint64_t{1} << shift) < static_cast<uint64_t>(d)) ++shift;
    const uint64_t mul = ((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1;
    return FastDiv{static_cast<uint32_t>(mul), shift};
  }
  __host__ __device__ __forceinline__ int Div(int n) const {
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(static_cast<uint32_t>(n), mul);
#else
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(n) * mul) >> 32);
#endif
    return static_cast<int>((hi + static_cast<uint32_t>(n)) >> shift);
  }
};

struct FwdParams {
  void* o;
  float* lse;
  int64_t o_stride_b, o_stride_s, o_stride_h;
  int64_t lse_stride_b, lse_stride_h, lse_stride_s;
  int batch, heads, heads_kv, s_q, s_k, d, causal, num_m_tiles;
  float scale_log2;
  int whole_units;  // the units run whole in round-robin (the rest: the pool or a tail launch)
  // Set by SetDivisors: by the query tiles of a unit's (batch, head) (UnitsPerBh),
  // by heads, and by the query heads per K/V head.
  FastDiv per_bh, by_heads, by_group;
};

// The last wave. With U work units on G CTAs, round-robin leaves U % G
// units for a last wave on some CTAs while the others idle: on the perf
// grid, 15.5 units per CTA took as long as 16 (lab run s5-run02), for cuDNN
// too.
// On long causal inputs (MinPoolKeys), where tiles differ most in length, the
// last full round of units and the leftover form a pool, whose tiles the host
// gives, longest first, each to the CTA that would be free first (PlanPool):
// what a dynamic scheduler does, without its hand-over between warps (the
// eighth session's sm90_dyn lost 2-3% to that). The round-robin units and the
// pool go on per-CTA lists in the launch's parameters (WalkArgs<kList>), in
// kernels of their own: a walk that switches from round-robin to a list took
// the wgmma descriptors out of uniform registers (s12_pool.patch, and a pool
// computed in the kernel, s13). Against round-robin and the tail launch, the
// pool measured up to 2-3% faster per input on causal inputs from s = 2048
// (d = 128) and 4096 (d = 64 and 256) on, +0.4% over each d's perf grid
// (s13 run 3); shorter causal inputs ran 2-6% slower with it, their tiles of
// many heads taken out of order and K/V out of L2 (s13 runs 1, 2). Which path
// an input takes is the host's estimate (TakesPool: SchedulePool against
// TailMakespan), with margins (kPoolMarginPct, kShortPoolMarginPct) that
// keep the perf grid's choices and move only inputs of few heads.
// Without the pool, where the leftover tiles are long, a second launch (the tail launch)
// cuts their key blocks into equal ranges, one per CTA, each walked as up to
// kMaxCtaPieces pieces of tiles; a tile cut into several pieces is finished
// by whichever of its CTAs finishes last (FinishPiece). Only tiles of at
// least MinSplitBlocks key blocks are cut: a piece costs a tile's fixed work
// (first S block, epilogue), its partial result, and the tail launch's
// start, which shorter tiles do not win back (lab runs s5-run04 to 07; at
// d = 128, 16 blocks lost 4% at causal s = 2048 against no tail launch, and
// 48 measured 0.8% faster than 16 over the d = 128 grid, s12 runs 4, 5).
// 0: never. The first launch's kernels are the ones without a tail.
constexpr int kMaxCtaPieces = 4;
constexpr int kMaxTilePieces = 4;
// The most CTAs a launch has: the multiprocessors of the largest sm_90 part
// (H100 and H200 SXM). It sizes the lists in the launches' parameters.
constexpr int kMaxCtas = 132;

// The pool's threshold: causal inputs whose longest tile has at least this
// many keys.
// d = 64 takes it from 2048 keys, as d = 128 does: causal s = 2048 on three
// consumers with the pool ran 4.5% faster than on two with it, and 13% faster
// than on three without it (H100, two lab passes, s32_run1.sh).
__host__ __device__ constexpr int MinPoolKeys(int d) { return d <= 128 ? 2048 : 4096; }
// The pool gives way to round-robin and the tail launch where their
// estimate (TailMakespan) is this much shorter than the pool's (SchedulePool),
// both in half key blocks: few heads of long causal inputs, whose longest
// tiles alone outlast a CTA's mean load, and only the tail launch cuts
// tiles. At d = 128 causal b = 1, s = 6144 h = 3 and s = 7680 h = 2 (the
// tail path estimated at 0.64 and 0.53 of the pool) the tail path took
// 18% and 29% less time; on the four other d = 128 pool-grid inputs and the perf
// grid's causal s = 2048 and 4096 (estimates 1.00 to 1.38) the pool ran 2%
// slower to 21% faster (H100, lab mq8 against head, 67-lab.tgz). With this
// choice (against the pool everywhere past MinPoolKeys, two lab passes, H100,
// 71-lab.tgz): causal b = 1 with one or two heads of 8192-16384 keys, d = 64,
// 128 and 256, 1.08x FA3 -> 1.67x (d = 256 s = 16384 h = 1: 313 -> 194 us);
// the pool grid 1.048x / 1.044x -> 1.096x / 1.087x; the perf grid's inputs
// keep the pool (their estimates 0.99 to 1.12), so their plans are unchanged.
constexpr int kPoolMarginPct = 10;
// Short of MinPoolKeys the pool is taken only where it is estimated this much
// shorter than round-robin: it takes the tiles of many heads out of order
// and their K/V out of L2, which cost 2-6% on the perf grid's shorter causal
// inputs (s13), estimated within 2% of round-robin (pool_est.cu); few
// (batch, head) pairs leave round-robin's last round on a few CTAs, estimated
// at 1.26-1.71 of the pool's time. On six such inputs (tails.py --grid short:
// d = 64, 128 and 256, 1024-3072 keys, 14-40 pairs) the pool took 10-28% less
// time than round-robin (0.958x / 0.963x FA3 -> 1.132x / 1.139x over the grid's
// eight, the two perf-grid controls unchanged; H100, two passes, 72-lab.tgz).
constexpr int kShortPoolMarginPct = 20;
// And only from this many keys in the longest tile, the shortest measured
// there: the pool's lists (132 x 48 16-bit entries, 12.7 KB of launch
// parameters) cost each call a fixed time that the estimates leave out, and
// on shorter inputs that time was not measured against what the pool saves.
constexpr int kMinShortPoolKeys = 1024;
// Whole tiles per CTA in one launch's list (20 rounds of units, and in the
// last launch the pool's at most kMaxCtaPoolTiles); a longer walk takes several launches,
// each a programmatic dependent of the one before (on the perf grid one is
// enough). The list is 12.4 KB of parameters: 30 KB cost 1.3% at s <= 1024,
// 12 KB nothing measurable (s13 run 2).
constexpr int kMaxCtaTiles = 48;
constexpr int kMaxCtaPoolTiles = 8;
// A tile's fixed cost (its first S block, its epilogue), in half key blocks,
// for PlanPool's estimate of when each CTA is free: the intercept of time
// against key blocks at d = 128 is 1.3 to 1.8 blocks per tile (s12 run 2).
constexpr int kTileCostHalfBlocks = 3;

// d = 256 cuts tiles of at least 192 of its 64-key blocks (s >= 12288); its
// tail launch stages O over each consumer's own Q rows (StoreTile's kOverQ),
// since the V ring its other launches stage O over needs every consumer at
// every store. Against no tail launch (H100, lab passes interleaved with FA3):
// perf-grid full s = 16384 +1.6% in each of three passes, and at b = 1 full
// s = 12800 h = 3 +20 to 22%, s = 32768 h = 2 +2%, causal even (two passes);
// cutting from 128 blocks lost 1.8% at full s = 8192 h = 10 (both passes).
// Runs in docs/gpu_runs/2026-12-07/61-lab.tgz and 62-lab.tgz.
__host__ __device__ constexpr int MinSplitBlocks(int d, int consumers) {
  return d == 64 ? (consumers == 3 ? 16 : 0) : (d == 128 ? 48 : 192);
}

// One piece of the tail: key blocks [it_begin, it_end) of one tile, in the
// kernels' order (highest keys first). A tile of `pieces` > 1 pieces keeps
// one partial result per piece and consumer in WalkArgs<Walk::kTail>::partials from slot
// `slot` on; `tile` numbers its completion counters.
struct TailPiece {
  int unit, sub;
  int it_begin, it_end;
  int piece, pieces;
  int tile, slot;

  __host__ __device__ __forceinline__ int4 Pack() const {
    return make_int4(unit, it_begin, it_end,
                     sub | (piece << 1) | (pieces << 4) | (tile << 8) | (slot << 20));
  }
  static __host__ __device__ __forceinline__ TailPiece Unpack(int4 v) {
    return TailPiece{v.x, v.w & 1, v.y, v.z, (v.w >> 1) & 7, (v.w >> 4) & 15, (v.w >> 8) & 4095,
                     v.w >> 20};
  }
};

// How a launch's CTAs find their tiles (TileWalk): units round-robin, a list
// per CTA (round-robin units, then the pool), or the tail launch's pieces.
enum class Walk { kUnits, kList, kTail };

// A launch's own parameters, by its walk (none for round-robin).
template <Walk kWalk>
struct WalkArgs {};

// CTA c's tiles are tiles[c * kMaxCtaTiles ...], in order, each
// 2 * (unit - base) + (the tile's index in its unit), up to the first 0xffff.
// Counted from a base unit, the entries fit 16 bits whatever the input's size.
template <>
struct WalkArgs<Walk::kList> {
  int base;
  uint16_t tiles[kMaxCtas * kMaxCtaTiles];
};

template <>
struct WalkArgs<Walk::kTail> {
  float* partials;  // split tiles' partial results
  int* counters;    // per split tile and consumer: pieces done (zeroed before the launch)
  // kMaxCtaPieces per CTA, TailPiece::Pack (pieces == 0 ends a CTA's list),
  // in the kernel's parameters (9 KB, which CUDA 12.1 and later allow): from
  // there, with the warp reduction in TailAt, ptxas keeps the wgmma
  // descriptors of the loops they bound in uniform registers. From global or
  // __constant__ memory it computed every descriptor per thread, and the
  // kernels ran 8% slower (s5-run05).
  int4 table[kMaxCtas * kMaxCtaPieces];
};

// ---------------------------------------------------------------------------
// PTX wrappers.

__device__ __forceinline__ uint32_t SmemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void MbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void MbarExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void MbarWait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

__device__ __forceinline__ void TmaLoad4d(uint32_t dst, const CUtensorMap* map, int c0, int c1,
                                          int c2, int c3, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

// Until this thread's committed stores are done.
__device__ __forceinline__ void BulkWait() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}
// The epilogue's operations by the threads whose `pred` is set, as
// predicated instructions rather than branches. The epilogue without
// branches (and without the slow paths of a precise reciprocal and log2f,
// which ptxas compiled into a CALL) measured 2-4% faster at d = 64 and 256,
// at every length: the loops' instructions are the same, scheduled
// differently.
//
// Until this thread's committed stores have read their shared memory.
__device__ __forceinline__ void BulkWaitReadIf(bool pred) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %0, 0;\n@p cp.async.bulk.wait_group.read 0;\n}\n" ::"r"(
          static_cast<uint32_t>(pred))
      : "memory");
}
// O tile from shared memory to global; rows and columns past the tensor's
// end are not written.
__device__ __forceinline__ void TmaStore4dIf(bool pred, const CUtensorMap* map, uint32_t src, int c0,
                                             int c1, int c2, int c3) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "@p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n}\n" ::
          "l"(reinterpret_cast<uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(static_cast<uint32_t>(pred))
      : "memory");
}
__device__ __forceinline__ void BulkCommitIf(bool pred) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %0, 0;\n@p cp.async.bulk.commit_group;\n}\n" ::"r"(
          static_cast<uint32_t>(pred))
      : "memory");
}
__device__ __forceinline__ void StoreF32If(bool pred, float* ptr, float value) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p st.global.f32 [%0], %1;\n}\n" ::"l"(ptr),
      "f"(value), "r"(static_cast<uint32_t>(pred))
      : "memory");
}
// Makes this thread's shared-memory writes visible to TMA (the async proxy).
__device__ __forceinline__ void FenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Named barrier of one consumer warpgroup (ids 4.., past the turn barriers).
__device__ __forceinline__ void ConsumerSync(int consumer) {
  asm volatile("bar.sync %0, 128;\n" ::"r"(4 + consumer) : "memory");
}

__device__ __forceinline__ void WgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle. Rows of 128 bytes, 8-row
// atoms 1024 bytes apart (stride byte offset). For K-major operands the
// leading byte offset is unused; for the N-major V operand it is the distance
// between 64-column chunks.
__device__ __forceinline__ uint64_t MakeDesc(uint32_t addr, uint32_t lbo_bytes) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>(lbo_bytes >> 4) << 16) |
         (static_cast<uint64_t>(1024 >> 4) << 32) | (1ull << 62);
}

// The descriptor of the tile `byte_offset` bytes past the one `base`
// describes. Only the address field (bits 0-13, in 16-byte units) changes,
// and it cannot carry out of them: shared memory addresses stay below 2^18.
// One uniform add per wgmma, where MakeDesc takes a mask, shifts and ors.
__device__ __forceinline__ uint64_t DescPlus(uint64_t base, uint32_t byte_offset) {
  const uint32_t lo = static_cast<uint32_t>(base) + (byte_offset >> 4);
  return (base & 0xFFFFFFFF00000000ull) | lo;
}

__device__ __forceinline__ float Exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// d = 64: O (columns 0-63) and the row sums (64-71) += P x [V | ones]
// (m64n72k16, A = P in registers, B N-major: V's chunk, then at the leading
// byte offset the ones, which IssuePv points there). Every column of l is its
// row's sum of P, in P's precision, the same values P V multiplies.
template <bool kBf16>
__device__ __forceinline__ void PvSumWgmma(float (&d)[32], float (&l)[4], uint32_t a0, uint32_t a1,
                                           uint32_t a2, uint32_t a3, uint64_t desc_b) {
  if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %41, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n72k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35}, {%36, %37, %38, %39}, %40, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(l[0]), "+f"(l[1]), "+f"(l[2]), "+f"(l[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
        : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %41, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n72k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35}, {%36, %37, %38, %39}, %40, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(l[0]), "+f"(l[1]), "+f"(l[2]), "+f"(l[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
        : "memory");
  }
}

// Approximate log2 and reciprocal (MUFU.LG2, MUFU.RCP): no slow path, so no
// branch in the epilogue.
__device__ __forceinline__ float Log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float Rcp(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

template <bool kBf16>
__device__ __forceinline__ uint32_t PackPair(float lo, float hi) {
  uint32_t r;
  if constexpr (kBf16) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    memcpy(&r, &v, 4);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    memcpy(&r, &v, 4);
  }
  return r;
}

// wgmma.mma_async m64nNk16 with fp32 accumulators. Ss: A and B K-major in
// shared memory; Rs: A (P) in registers, B N-major (transposed) in shared
// memory, and for N = 128 also K-major (Q in registers against K).
// Generated: one specialization per N and input type.
template <int N, bool kBf16>
struct Wgmma;

template <>
struct Wgmma<64, true> {
  static __device__ __forceinline__ void Ss(float (&d)[32], uint64_t desc_a,
                                          uint64_t desc_b, uint32_t accumulate) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate)
      : "memory");
  }
  static __device__ __forceinline__ void Rs(float (&d)[32], uint32_t a0, uint32_t a1,
                                          uint32_t a2, uint32_t a3, uint64_t desc_b) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
      : "memory");
  }
};

template <>
struct Wgmma<64, false> {
  static __device__ __forceinline__ void Ss(float (&d)[32], uint64_t desc_a,
                                          uint64_t desc_b, uint32_t accumulate) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate)
      : "memory");
  }
  static __device__ __forceinline__ void Rs(float (&d)[32], uint32_t a0, uint32_t a1,
                                          uint32_t a2, uint32_t a3, uint64_t desc_b) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
      : "memory");
  }
};

template <>
struct Wgmma<128, true> {
  static __device__ __forceinline__ void Ss(float (&d)[64], uint64_t desc_a,
                                          uint64_t desc_b, uint32_t accumulate) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate)
      : "memory");
  }
  // A from registers; B N-major (kTransB: V in P V) or K-major (K in Q K^T
  // with Q in registers).
  template <bool kTransB = true>
  static __device__ __forceinline__ void Rs(float (&d)[64], uint32_t a0, uint32_t a1, uint32_t a2,
                                          uint32_t a3, uint64_t desc_b, uint32_t accumulate = 1u) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(accumulate), "n"(kTransB ? 1 : 0)
      : "memory");
  }
};

template <>
struct Wgmma<128, false> {
  static __device__ __forceinline__ void Ss(float (&d)[64], uint64_t desc_a,
                                          uint64_t desc_b, uint32_t accumulate) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate)
      : "memory");
  }
  // A from registers; B N-major (kTransB: V in P V) or K-major (K in Q K^T
  // with Q in registers).
  template <bool kTransB = true>
  static __device__ __forceinline__ void Rs(float (&d)[64], uint32_t a0, uint32_t a1, uint32_t a2,
                                          uint32_t a3, uint64_t desc_b, uint32_t accumulate = 1u) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(accumulate), "n"(kTransB ? 1 : 0)
      : "memory");
  }
};

template <>
struct Wgmma<256, true> {
  static __device__ __forceinline__ void Rs(float (&d)[128], uint32_t a0, uint32_t a1,
                                          uint32_t a2, uint32_t a3, uint64_t desc_b) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
      : "memory");
  }
};

template <>
struct Wgmma<256, false> {
  static __device__ __forceinline__ void Rs(float (&d)[128], uint32_t a0, uint32_t a1,
                                          uint32_t a2, uint32_t a3, uint64_t desc_b) {
    asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc_b), "r"(1u)
      : "memory");
  }
};

// ---------------------------------------------------------------------------
// Fast path.

// Pins accumulator registers at this point of the instruction stream: wgmma
// writes them asynchronously, so reads must not move above the wait and
// writes must not move below the next fence.
template <int N>
__device__ __forceinline__ void FenceRegs(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

template <int N>
__device__ __forceinline__ void FenceRegs(uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// mbarrier arrive by the threads whose `pred` is set, as one predicated
// instruction: a branch here would split the steady-state loop into blocks,
// and ptxas then waits for every wgmma in flight at the join, which is
// exactly the overlap of softmax and P V this kernel is built on.
__device__ __forceinline__ void MbarArriveIf(uint32_t bar, bool pred) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n"
      "@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n" ::"r"(bar),
      "r"(static_cast<uint32_t>(pred))
      : "memory");
}

// Which (query tile, batch, head) a persistent CTA works on. CTAs take work
// units round-robin. Without a mask a unit is one query tile, consecutive
// units sharing (batch, head) and so their K/V in L2. With the causal mask a
// unit pairs query tiles M-1-j and j of one (batch, head): every pair costs
// about the same number of K/V blocks, so round-robin is balanced, and the
// pairs of one (batch, head) run at the same time and share K/V in L2.
struct TileCoord {
  int m_tile, head, batch;
};

// Units per (batch, head): query tiles, or with the causal mask pairs of them.
__host__ __device__ __forceinline__ int UnitsPerBh(const FwdParams& p) {
  return p.causal ? (p.num_m_tiles + 1) / 2 : p.num_m_tiles;
}

__host__ __device__ __forceinline__ int NumUnits(const FwdParams& p) {
  return UnitsPerBh(p) * p.batch * p.heads;
}

// The walk's divisors, once num_m_tiles is set.
inline void SetDivisors(FwdParams* p) {
  p->per_bh = FastDiv::By(UnitsPerBh(*p));
  p->by_heads = FastDiv::By(p->heads);
  p->by_group = FastDiv::By(p->heads / p->heads_kv);
}

// Unit `unit`'s (batch, head) pair and its place j among that pair's units.
struct UnitPlace {
  int bh, j;
};
__host__ __device__ __forceinline__ UnitPlace PlaceOf(int unit, const FwdParams& p) {
  const int bh = p.per_bh.Div(unit);
  return UnitPlace{bh, unit - bh * UnitsPerBh(p)};
}

__host__ __device__ __forceinline__ int TilesInUnit(int unit, const FwdParams& p) {
  if (!p.causal) return 1;
  const int j = PlaceOf(unit, p).j;
  return (p.num_m_tiles - 1 - j != j) ? 2 : 1;
}

__host__ __device__ __forceinline__ TileCoord UnitTile(int unit, int sub, const FwdParams& p) {
  TileCoord c;
  const auto [bh, j] = PlaceOf(unit, p);
  c.m_tile = p.causal && sub == 0 ? p.num_m_tiles - 1 - j : j;
  c.batch = p.by_heads.Div(bh);
  c.head = bh - c.batch * p.heads;
  return c;
}

// A value every thread of the warp holds, made warp-uniform for ptxas (a
// warp reduction writes a uniform register; a load with a per-thread index
// does not, even from constant memory), so that the wgmma descriptors of the
// loops it bounds stay uniform too.
__device__ __forceinline__ int Uniform(int v) { return __reduce_max_sync(0xffffffffu, v); }

// Piece i of the tail.
__device__ __forceinline__ TailPiece TailAt(const WalkArgs<Walk::kTail>& ta, int i) {
  const int4 v = ta.table[i];
  return TailPiece::Unpack(make_int4(Uniform(v.x), Uniform(v.y), Uniform(v.z), Uniform(v.w)));
}

__host__ __device__ __forceinline__ int MinInt(int a, int b) { return a < b ? a : b; }

template <int kBlockN, int kRows = kBlockM>
__host__ __device__ __forceinline__ int KvBlocks(int m0, const FwdParams& p) {
  int n_blocks = (p.s_k + kBlockN - 1) / kBlockN;
  if (p.causal) {
    // Keys j visible to query i: j <= i + s_k - s_q (bottom-right aligned).
    const int last_row = MinInt(m0 + kRows, p.s_q) - 1;
    const int last_key = last_row + p.s_k - p.s_q;
    n_blocks = last_key < 0 ? 0 : MinInt(n_blocks, last_key / kBlockN + 1);
  }
  return n_blocks;
}

// One tile of a CTA's walk: its coordinates, its key blocks, and the range of
// them this CTA computes (all of them, except for a piece of a tail launch).
struct WorkTile {
  TileCoord tc;
  int n_blocks;
  int it_begin, it_end;  // key blocks it_begin .. it_end - 1, highest keys first
  TailPiece piece;       // tail launch alone (unset otherwise): which piece (pieces == 1: whole)
};

// The tiles one CTA computes, in order; the producer and every consumer walk
// the same sequence. Round-robin takes units blockIdx.x, then + gridDim.x,
// up to p.whole_units, each unit's tiles whole; a list launch takes this
// CTA's whole tiles from WalkArgs<kList>, a tail launch its pieces.
template <int kBlockN, int kRows, Walk kWalk>
class TileWalk {
 public:
  __device__ __forceinline__ TileWalk(const FwdParams& p, const WalkArgs<kWalk>& wa)
      : p_(p), wa_(wa), w_(kWalk == Walk::kUnits ? blockIdx.x : 0), sub_(0) {}

  // The next tile into *t; false past the last one.
  __device__ __forceinline__ bool Next(WorkTile* t) {
    if constexpr (kWalk == Walk::kList) {
      if (w_ == kMaxCtaTiles) return false;
      const int e = Uniform(wa_.tiles[blockIdx.x * kMaxCtaTiles + w_]);
      if (e == 0xffff) return false;
      ++w_;
      t->tc = UnitTile(wa_.base + (e >> 1), e & 1, p_);
    } else if constexpr (kWalk == Walk::kTail) {
      if (w_ == kMaxCtaPieces) return false;
      t->piece = TailAt(wa_, blockIdx.x * kMaxCtaPieces + w_);
      if (t->piece.pieces == 0) return false;
      ++w_;
      t->tc = UnitTile(t->piece.unit, t->piece.sub, p_);
    } else {
      if (w_ >= p_.whole_units) return false;
      t->tc = UnitTile(w_, sub_, p_);
    }
    t->n_blocks = KvBlocks<kBlockN, kRows>(t->tc.m_tile * kRows, p_);
    if constexpr (kWalk == Walk::kTail) {
      t->it_begin = t->piece.it_begin;
      t->it_end = t->piece.it_end;
    } else {
      t->it_begin = 0;
      t->it_end = t->n_blocks;
    }
    if constexpr (kWalk == Walk::kUnits) {
      // On to the unit's other tile, or to this CTA's next unit.
      if (++sub_ == TilesInUnit(w_, p_)) {
        sub_ = 0;
        w_ += gridDim.x;
      }
    }
    return true;
  }

 private:
  const FwdParams& p_;
  const WalkArgs<kWalk>& wa_;
  int w_;    // round-robin: the unit; list and tail: the entry's index in this CTA's list
  int sub_;  // round-robin: the tile within the unit
};

// How far (in log2 units of the scaled scores) a row's new scores may rise
// above a stale max before it is raised (kStaleMax).
constexpr float kMaxStaleLog2 = 8.f;

// The max of `init` and this thread's part of row r of an S block. Four
// partial maxima, so that the dependent chain is a quarter of the row (lab,
// s12 run 2: d = 64 +0.8%, d = 128 +0.4%, d = 256 even, against one chain),
// seeded from the first four column pairs rather than from -inf, `init`
// taken last (three max instructions fewer a row; with the stale test's one
// compare, s16 run 1: +0.4-0.5% at d = 128, +0.6-0.8% at d = 64, d = 256
// even).
template <int kBlockN>
__device__ __forceinline__ float ThreadRowMax(const float (&s_acc)[kBlockN / 2], int r, float init) {
  static_assert(kBlockN >= 32, "four column pairs seed the partial maxima");
  float part[4];
#pragma unroll
  for (int nn = 0; nn < 4; ++nn) {
    part[nn] = fmaxf(s_acc[nn * 4 + r * 2], s_acc[nn * 4 + r * 2 + 1]);
  }
#pragma unroll
  for (int nn = 4; nn < kBlockN / 8; ++nn) {
    part[nn % 4] = fmaxf(part[nn % 4], fmaxf(s_acc[nn * 4 + r * 2], s_acc[nn * 4 + r * 2 + 1]));
  }
  return fmaxf(init, fmaxf(fmaxf(part[0], part[1]), fmaxf(part[2], part[3])));
}

__device__ __forceinline__ float QuadMax(float mx) {
  mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
  return fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
}

template <int kBlockN>
__device__ __forceinline__ float RowMax(const float (&s_acc)[kBlockN / 2], int r, float init) {
  return QuadMax(ThreadRowMax<kBlockN>(s_acc, r, init));
}

// The sum of a row's kSums partial sums.
template <int kSums>
__device__ __forceinline__ float AddParts(const float (&part)[kSums]) {
  static_assert(kSums == 1 || kSums == 4, "one or four partial sums");
  if constexpr (kSums == 1) {
    return part[0];
  } else {
    return (part[0] + part[1]) + (part[2] + part[3]);
  }
}

// Row r of an S block to exp2(score * scale_log2 - m_scaled), in place;
// returns this thread's part of the row's sum. kSums partial sums: d = 64,
// whose softmax runs after both products, measured 1.4% faster with four
// than with one; the kernels that overlap the softmax with P V measured
// 0.7% slower with four (lab, s12 run 2).
template <int kBlockN, int kSums>
__device__ __forceinline__ float ExpRow(float (&s_acc)[kBlockN / 2], int r, float scale_log2,
                                        float m_scaled) {
  float part[kSums] = {};
#pragma unroll
  for (int nn = 0; nn < kBlockN / 8; ++nn) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const float x = fmaf(s_acc[nn * 4 + r * 2 + j], scale_log2, -m_scaled);
      const float e = Exp2(x);
      s_acc[nn * 4 + r * 2 + j] = e;
      part[(nn * 2 + j) % kSums] += e;
    }
  }
  return AddParts(part);
}

// Row r of an S block to exp2(score * scale_log2 - m_scaled), packed into
// pr (pr[nn] is the pair p_frag[2 * nn + r] holds), S left as it is for a
// second pass (VoteOnSums); returns this thread's part of the row's sum, in
// ExpRow's order (the same bits). d = 64 drops the sum: its sums come from
// the tensor pipe (PvSumWgmma).
template <int kBlockN, bool kBf16>
__device__ __forceinline__ float ExpRowPacked(const float (&s_acc)[kBlockN / 2], int r,
                                              float scale_log2, float m_scaled,
                                              uint32_t (&pr)[kBlockN / 8]) {
  float sum = 0.f;
#pragma unroll
  for (int nn = 0; nn < kBlockN / 8; ++nn) {
    const float e0 = Exp2(fmaf(s_acc[nn * 4 + r * 2], scale_log2, -m_scaled));
    const float e1 = Exp2(fmaf(s_acc[nn * 4 + r * 2 + 1], scale_log2, -m_scaled));
    sum += e0;
    sum += e1;
    pr[nn] = PackPair<kBf16>(e0, e1);
  }
  return sum;
}

// A register copy that ptxas keeps as an instruction. At d >= 128 P's row 0
// is packed while P V still reads p_frag; assigned to p_frag as it is, ptxas
// gives it p_frag's registers and serializes every wgmma (C7513).
__device__ __forceinline__ uint32_t CopyReg(uint32_t x) {
  uint32_t d;
  asm volatile("mov.b32 %0, %1;" : "=r"(d) : "r"(x));
  return d;
}

// A row with no visible key yet keeps max -inf; subtract 0 so that
// exp2(-inf - (-inf)) never makes a NaN.
__device__ __forceinline__ float ScaledMax(float m, float scale_log2) {
  return m == -INFINITY ? 0.f : m * scale_log2;
}

// The stale max (d >= 128): the row max the exponentials subtract is raised
// only when some row of the warp has new scores more than 2^kMaxStaleLog2
// above it; otherwise every row keeps its max, probabilities reach at most
// 2^8 (exact enough in the fp32 sum and in P), and O needs no rescale. With
// kAnyRise, any score above a row's max raises the warp's maxima (VoteOnSums
// after its vote fired). Sets the max each row's exponentials subtract
// (scaled), its correction (1 where the max is kept) and the new row max,
// and returns whether O must be rescaled: the same in every thread of a
// warp, so that a branch on it does not diverge. The exponentials are the
// caller's, a row at a time.
template <int kBlockN, bool kAnyRise = false>
__device__ __forceinline__ bool StaleMaxStep(const float (&s_acc)[kBlockN / 2],
                                             float (&row_max)[2], float (&m_scaled)[2],
                                             float (&correction)[2], float scale_log2) {
  float mx[2];
  bool grows = false;
  const float max_stale = kAnyRise ? 0.f : __fdividef(kMaxStaleLog2, scale_log2);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    mx[r] = ThreadRowMax<kBlockN>(s_acc, r, row_max[r]);
    // A row with no visible key yet (-inf > -inf + max_stale is false)
    // does not ask for a rescale.
    grows = grows || mx[r] > row_max[r] + max_stale;
  }
  const bool rescale = __any_sync(0xffffffffu, grows);
  if (rescale) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float m = QuadMax(mx[r]);
      m_scaled[r] = ScaledMax(m, scale_log2);
      correction[r] = Exp2(row_max[r] * scale_log2 - m_scaled[r]);
      row_max[r] = m;
    }
  } else {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      m_scaled[r] = ScaledMax(row_max[r], scale_log2);
      correction[r] = 1.f;
    }
  }
  return rescale;
}

// Online softmax on one S block (fp32 scores): turns s_acc into
// unnormalized probabilities, updates the row max and sum, and returns
// whether O must be scaled by `correction`. With kStaleMax as StaleMaxStep
// decides; without (d = 64, whose softmax runs after both products) the max
// always follows the scores, each row finished before the next, and O is
// always rescaled.
template <int kBlockN, bool kStaleMax>
__device__ __forceinline__ bool SoftmaxStep(float (&s_acc)[kBlockN / 2], float (&row_max)[2],
                                            float (&row_sum)[2], float (&correction)[2],
                                            float scale_log2) {
  if constexpr (!kStaleMax) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float mx = RowMax<kBlockN>(s_acc, r, row_max[r]);
      const float m_scaled = ScaledMax(mx, scale_log2);
      correction[r] = Exp2(row_max[r] * scale_log2 - m_scaled);
      row_max[r] = mx;
      row_sum[r] =
          row_sum[r] * correction[r] + ExpRow<kBlockN, 4>(s_acc, r, scale_log2, m_scaled);
    }
    return true;
  } else {
    float m_scaled[2];
    const bool rescale =
        StaleMaxStep<kBlockN>(s_acc, row_max, m_scaled, correction, scale_log2);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_sum[r] = row_sum[r] * correction[r] +
                   ExpRow<kBlockN, 1>(s_acc, r, scale_log2, m_scaled[r]);
    }
    return rescale;
  }
}

// Where one CTA's Q buffers, K/V ring and mbarriers sit in shared memory. The
// 128-byte swizzle pattern repeats every 1024 bytes of address, and wgmma and
// TMA must agree on it: every tile starts at a multiple of 1024.
template <class Cfg>
struct SmemMap {
  uint32_t q, k, v;  // Q buffers, then the K and V halves of the ring
  uint32_t o;        // O staging buffer (own buffer; over the V ring, StoreTile's slot)
  uint32_t q_full, q_empty, k_full, v_full, k_empty, v_empty;  // one mbarrier per stage
  uint32_t o_full;  // O over the V ring: one per consumer, its rows written for the producer
  uint32_t ones;    // d = 64: kOnesBytes of ones (1024-aligned)

  __device__ __forceinline__ explicit SmemMap(const uint8_t* raw) {
    q = (SmemAddr(raw) + 1023u) & ~1023u;
    k = q + Cfg::kQStages * Cfg::kQBytes;
    v = k + Cfg::kStages * Cfg::kKvBytes;
    o = Cfg::kOwnOBuffer ? v + Cfg::kStages * Cfg::kKvBytes : v;
    ones = v + Cfg::kStages * Cfg::kKvBytes + (Cfg::kOwnOBuffer ? Cfg::kQBytes : 0);
    q_full = ones + Cfg::kOnesBytes;
    q_empty = q_full + 8 * Cfg::kQStages * Cfg::kQParts;
    k_full = q_empty + 8 * Cfg::kQStages * Cfg::kQParts;
    v_full = k_full + 8 * Cfg::kStages;
    k_empty = v_full + 8 * Cfg::kStages;
    v_empty = k_empty + 8 * Cfg::kStages;
    o_full = v_empty + 8 * Cfg::kStages;
  }

  // By thread 0 before the CTA's first __syncthreads. A full barrier
  // completes on the producer's arrival plus the TMA bytes; an empty one once
  // lane 0 of every consumer warp has arrived.
  __device__ __forceinline__ void InitBarriers(int consumer_warps) const {
    for (int s = 0; s < Cfg::kQStages * Cfg::kQParts; ++s) {
      MbarInit(q_full + 8 * s, 1);
      MbarInit(q_empty + 8 * s, consumer_warps / Cfg::kQParts);
    }
    for (int s = 0; s < Cfg::kStages; ++s) {
      MbarInit(k_full + 8 * s, 1);
      MbarInit(v_full + 8 * s, 1);
      MbarInit(k_empty + 8 * s, consumer_warps);
      MbarInit(v_empty + 8 * s, consumer_warps);
    }
    if (!Cfg::kOwnOBuffer) {
      for (int c = 0; c < Cfg::kRows / 64; ++c) MbarInit(o_full + 8 * c, 4);  // its 4 warps
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }

  // The barriers of Q buffer qs, or of consumer c's rows of it (kQParts).
  __device__ __forceinline__ uint32_t QFull(int qs, int c) const {
    return q_full + 8 * (qs * Cfg::kQParts + (Cfg::kQParts > 1 ? c : 0));
  }
  __device__ __forceinline__ uint32_t QEmpty(int qs, int c) const {
    return q_empty + 8 * (qs * Cfg::kQParts + (Cfg::kQParts > 1 ? c : 0));
  }
};

// The TMA stores of one consumer's 64 rows of O, staged at `stage` (its
// 64-column chunks chunk_bytes apart), from query row row0, by the threads
// whose `pred` is set; the caller commits them.
template <class Cfg>
__device__ __forceinline__ void StoreORowsIf(bool pred, const CUtensorMap* tmap_o, uint32_t stage,
                                             int chunk_bytes, const TileCoord& tc, int row0) {
#pragma unroll
  for (int ch = 0; ch < Cfg::kChunks; ++ch) {
    TmaStore4dIf(pred, tmap_o, stage + ch * chunk_bytes, ch * 64, tc.head, row0, tc.batch);
  }
}

// Where O is staged over the V ring (not kOwnOBuffer), consumer c's rows of a
// tile whose last V block is the walk's block kv_last go over the V slot of
// block OStageBlock: the last consumer's over kv_last's, the one before over
// the block before's. Once every consumer has released that block, no V goes
// there until the rows' store has read them (RunProducer). A negative block
// (the walk's first tile of one block) names the slot before block 0's.
template <class Cfg>
__device__ __forceinline__ int OStageBlock(int kv_last, int consumer) {
  return kv_last - (Cfg::kRows / 64 - 1 - consumer);
}

template <class Cfg>
__device__ __forceinline__ int OStageSlot(int block) {
  return (block + Cfg::kStages) % Cfg::kStages;
}

template <class Cfg>
__device__ __forceinline__ uint32_t OStageAddr(const SmemMap<Cfg>& sm, int block) {
  return sm.v + OStageSlot<Cfg>(block) * Cfg::kKvBytes;
}

// Staggered start (round-robin walk). Every CTA's tiles are the same length
// wherever all have whole rounds, so all change tiles at once, and each
// change is one DRAM burst of every CTA's Q and first K/V (a tile trace at
// d = 256, s = 1024: the first S waited 1300-3600 cycles for Q). The CTAs
// with a round fewer of units (blockIdx.x >= whole_units % gridDim.x) would
// finish a tile early and wait anyway; they start about half a tile late
// instead (their first tile's blocks x kBlockN x D / 11 cycles, from the
// measured tile period), so their changes fall between the others'. Lab
// s28 (H100, against FA3 in one process, two passes): d = 256 +1.3% and
// +1.0%, d = 128 +0.4%, d = 64 +0.2%; a quarter tile on every odd CTA
// instead (which lengthens the makespan) lost 0.1-1%.
// `walk` is a copy: looking at the first tile leaves the caller's walk where it is.
template <class Cfg, Walk kWalk>
__device__ __forceinline__ void StaggerStart(const FwdParams& p,
                                             TileWalk<Cfg::kBlockN, Cfg::kRows, kWalk> walk) {
  if constexpr (kWalk == Walk::kUnits) {
    const int ctas_one_more = p.whole_units % static_cast<int>(gridDim.x);
    if (ctas_one_more == 0 || static_cast<int>(blockIdx.x) < ctas_one_more) return;
    WorkTile first;
    if (!walk.Next(&first)) return;
    const long long wait = static_cast<long long>(first.it_end - first.it_begin) *
                           (Cfg::kBlockN * Cfg::kD / 11);
    const long long t0 = clock64();
    while (clock64() - t0 < wait) {
    }
  }
}

// The producer: one thread walks the same tiles as the consumers and keeps
// the Q buffers and the K and V rings full, blocks in the consumers' order
// (highest keys first). With kKAhead, K of block i + 1 goes out before V of
// block i, as the consumers use them (S of block i + 1 is issued with P V of
// block i), rather than K and V of each block together, where the next K
// waits behind a V slot that comes free later. With kEarlyQ (two Q buffers),
// the next tile's Q is issued right after this tile's first K block rather
// than after its last, so it is not queued behind this tile's K/V. Its buffer is the previous
// tile's, which the consumers release after that tile's last S product,
// without waiting for anything of this tile, so the wait cannot deadlock.
// Where O is staged over the V ring (not in the tail launch, which stages it
// over Q), it also stores each tile's O and waits for the store to read it
// before the next tile's first V goes there.
// It walks the CTA's TileWalk, as the consumers do, after StaggerStart.
template <class Cfg, bool kEarlyQ, bool kKAhead, Walk kWalk>
__device__ __forceinline__ void RunProducer(const SmemMap<Cfg>& sm, const CUtensorMap* tmap_q,
                                            const CUtensorMap* tmap_k, const CUtensorMap* tmap_v,
                                            const CUtensorMap* tmap_o, const FwdParams& p,
                                            const WalkArgs<kWalk>& wa) {
  constexpr int kStages = Cfg::kStages;
  constexpr int kQStages = Cfg::kQStages;
  constexpr int kQParts = Cfg::kQParts;
  constexpr int kPartRows = Cfg::kRows / kQParts;
  static_assert(!kEarlyQ || kQStages == 2, "an early Q needs a second Q buffer");
  static_assert(!kEarlyQ || kQParts == 1, "an early Q is loaded whole");
  int kv_iter = 0;  // blocks of the walk whose K has been issued
  int q_iter = 0;
  // Rows [part * kPartRows, +kPartRows) of the tile's Q (consumer part's);
  // the last part completes the tile's Q.
  auto load_q_part = [&](const TileCoord& tc, int m0, int part) {
    const int qs = q_iter % kQStages;
    if (q_iter >= kQStages) MbarWait(sm.QEmpty(qs, part), ((q_iter / kQStages) & 1) ^ 1);
    MbarExpectTx(sm.QFull(qs, part), Cfg::kQBytes / kQParts);
    for (int c = 0; c < Cfg::kChunks; ++c) {
      TmaLoad4d(sm.q + qs * Cfg::kQBytes + c * Cfg::kRows * kSwizzleBytes +
                    part * kPartRows * kSwizzleBytes,
                tmap_q, c * 64, tc.head, m0 + part * kPartRows, tc.batch, sm.QFull(qs, part));
    }
    if (part == kQParts - 1) ++q_iter;
  };
  auto load_q = [&](const TileCoord& tc, int m0) {
    for (int part = 0; part < kQParts; ++part) load_q_part(tc, m0, part);
  };
  // K or V of key block n, the walk's block i, into slot i % kStages of its
  // ring, once the consumers have released block i - kStages there.
  auto load_block = [&](const CUtensorMap* tmap, uint32_t ring, uint32_t full, uint32_t empty,
                        int i, const TileCoord& tc, int n) {
    const int head_kv = p.by_group.Div(tc.head);
    const int s = i % kStages;
    if (i >= kStages) MbarWait(empty + 8 * s, ((i / kStages) & 1) ^ 1);
    MbarExpectTx(full + 8 * s, Cfg::kKvBytes);
    for (int c = 0; c < Cfg::kChunks; ++c) {
      TmaLoad4d(ring + s * Cfg::kKvBytes + c * Cfg::kBlockN * kSwizzleBytes, tmap, c * 64, head_kv,
                n * Cfg::kBlockN, tc.batch, full + 8 * s);
    }
  };
  auto load_k = [&](int i, const TileCoord& tc, int n) {
    load_block(tmap_k, sm.k, sm.k_full, sm.k_empty, i, tc, n);
  };
  int tiles = 0;             // tiles begun
  bool v_after_o = false;    // this tile's first V waits for the last tile's O store
  TileCoord last_tc{};       // the tile before this one, whose O goes out during it
  // O staged over the V ring: consumer c's rows of the walk's tile `tile`,
  // whose last V block was kv_last, once c has written them (its o_full).
  auto store_rows = [&](int tile, const TileCoord& tc, int c, int kv_last) {
    MbarWait(sm.o_full + 8 * c, tile & 1);
    StoreORowsIf<Cfg>(true, tmap_o, OStageAddr(sm, OStageBlock<Cfg>(kv_last, c)),
                      Cfg::kOChunkBytes, tc, tc.m_tile * Cfg::kRows + c * 64);
    BulkCommitIf(true);
  };
  // A tile's first V (block i) goes into the slot of the last tile's
  // consumer 0 rows, its second into consumer 1's: the first waits for
  // consumer 0's store to be read, consumer 1's store goes out after it, and
  // the second V waits for that read (last_rows). A tile of one block
  // (`more`: another V of this tile follows) stores both before its V, since
  // its consumers write their next O over consumer 1's slot after that V.
  bool last_rows = false;
  auto load_v = [&](int i, const TileCoord& tc, int n, bool more) {
    if constexpr (!Cfg::kOwnOBuffer && kWalk != Walk::kTail) {
      static_assert(Cfg::kRows == 128, "two consumers' rows over two V slots");
      if (v_after_o) {
        store_rows(tiles - 2, last_tc, 0, i - 1);
        if (!more) store_rows(tiles - 2, last_tc, 1, i - 1);
        BulkWaitReadIf(true);
        v_after_o = false;
        load_block(tmap_v, sm.v, sm.v_full, sm.v_empty, i, tc, n);
        if (more) store_rows(tiles - 2, last_tc, 1, i - 1);
        last_rows = more;
        return;
      }
      if (last_rows) {
        BulkWaitReadIf(true);
        last_rows = false;
      }
    }
    load_block(tmap_v, sm.v, sm.v_full, sm.v_empty, i, tc, n);
  };
  TileWalk<Cfg::kBlockN, Cfg::kRows, kWalk> walk(p, wa);
  StaggerStart<Cfg>(p, walk);
  WorkTile t;
  bool q_loaded = false;  // this tile's Q went out early, during the previous tile
  while (walk.Next(&t)) {
    if (t.it_begin == t.it_end) continue;
    v_after_o = tiles > 0;
    ++tiles;
    if (!q_loaded) {
      if constexpr (kQParts == 1) {
        load_q(t.tc, t.tc.m_tile * Cfg::kRows);
      } else {
        load_q_part(t.tc, t.tc.m_tile * Cfg::kRows, 0);
      }
    }
    q_loaded = false;
    for (int it = t.it_begin; it < t.it_end; ++it, ++kv_iter) {
      load_k(kv_iter, t.tc, t.n_blocks - 1 - it);
      if constexpr (kQParts > 1) {
        // The other consumers' rows after the first K block, which consumer
        // 0 needs with its rows and which waits for nothing they hold.
        if (it == t.it_begin) {
          for (int part = 1; part < kQParts; ++part) {
            load_q_part(t.tc, t.tc.m_tile * Cfg::kRows, part);
          }
        }
      }
      if (!kKAhead) {
        load_v(kv_iter, t.tc, t.n_blocks - 1 - it, it + 1 < t.it_end);
      } else if (it > t.it_begin) {
        load_v(kv_iter - 1, t.tc, t.n_blocks - it, true);  // block it - 1
      }
      if (kEarlyQ && it == t.it_begin) {
        TileWalk<Cfg::kBlockN, Cfg::kRows, kWalk> ahead = walk;
        WorkTile next;
        if (ahead.Next(&next) && next.it_begin < next.it_end) {
          load_q(next.tc, next.tc.m_tile * Cfg::kRows);
          q_loaded = true;
        }
      }
    }
    if (kKAhead) load_v(kv_iter - 1, t.tc, t.n_blocks - t.it_end, false);  // the tile's last block
    last_tc = t.tc;
  }
  if (!Cfg::kOwnOBuffer && kWalk != Walk::kTail && tiles > 0) {
    store_rows(tiles - 1, last_tc, 0, kv_iter - 1);
    store_rows(tiles - 1, last_tc, 1, kv_iter - 1);
    BulkWait();
  }
}

// Where one consumer thread sits in the wgmma accumulator layout: warp w of
// the warpgroup holds rows 16w..16w+15 of the consumer's 64, lane l rows
// l/4 and l/4 + 8 of those, columns 2(l%4), +1 of every 8-column chunk.
struct ConsumerLane {
  int consumer;  // 0-based consumer warpgroup
  int lane;
  int quad_col;
  int row_base;  // query row of this thread's first accumulator row; the other is +8

  __device__ __forceinline__ ConsumerLane(int consumer_, int m0) : consumer(consumer_) {
    const int t = threadIdx.x % 128;
    lane = t % 32;
    quad_col = lane % 4;
    row_base = m0 + consumer * 64 + (t / 32) * 16 + lane / 4;
  }
};

// S = Q K^T of this consumer's 64 rows against the block in ring slot s,
// into s_acc (issued, not waited). The descriptors step from the first by
// constants (DescPlus): at d = 64 and 256 0.8% and 0.4% faster in the lab than
// a MakeDesc per wgmma (s12 run 1).
template <class Cfg, bool kBf16>
__device__ __forceinline__ void IssueQk(float (&s_acc)[Cfg::kBlockN / 2], const SmemMap<Cfg>& sm,
                                        int qs, int consumer, int s) {
  const uint64_t q0 = MakeDesc(sm.q + qs * Cfg::kQBytes + consumer * 64 * kSwizzleBytes, 16);
  const uint64_t k0 = MakeDesc(sm.k + s * Cfg::kKvBytes, 16);
  WgmmaFence();
#pragma unroll
  for (int kk = 0; kk < Cfg::kD / 16; ++kk) {
    const uint64_t desc_q = DescPlus(q0, (kk / 4) * Cfg::kRows * kSwizzleBytes + (kk % 4) * 32);
    const uint64_t desc_k = DescPlus(k0, (kk / 4) * Cfg::kBlockN * kSwizzleBytes + (kk % 4) * 32);
    Wgmma<Cfg::kBlockN, kBf16>::Ss(s_acc, desc_q, desc_k, kk > 0 ? 1u : 0u);
  }
  WgmmaCommit();
}

// This consumer's 64 rows of Q as wgmma A fragments (ldmatrix from the
// swizzled tile): 4 registers per k16 step.
template <class Cfg>
__device__ __forceinline__ void LoadQFrag(uint32_t (&q_frag)[Cfg::kD / 4], const SmemMap<Cfg>& sm,
                                          int qs, int consumer) {
  const int t = threadIdx.x % 128;
  const int lane = t % 32;
  const int row = consumer * 64 + (t / 32) * 16 + (lane % 8) + 8 * ((lane / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < Cfg::kD / 16; ++kk) {
    const int unit = 2 * (kk % 4) + lane / 16;
    const uint32_t addr = sm.q + qs * Cfg::kQBytes + (kk / 4) * Cfg::kRows * kSwizzleBytes +
                          row * kSwizzleBytes + ((unit ^ (row % 8)) * 16);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(q_frag[4 * kk]), "=r"(q_frag[4 * kk + 1]), "=r"(q_frag[4 * kk + 2]),
                   "=r"(q_frag[4 * kk + 3])
                 : "r"(addr)
                 : "memory");
  }
}

// S = Q K^T with Q from registers (issued, not waited).
template <class Cfg, bool kBf16>
__device__ __forceinline__ void IssueQkRegs(float (&s_acc)[Cfg::kBlockN / 2],
                                            const uint32_t (&q_frag)[Cfg::kD / 4],
                                            const SmemMap<Cfg>& sm, int s) {
  const uint64_t k0 = MakeDesc(sm.k + s * Cfg::kKvBytes, 16);
  WgmmaFence();
#pragma unroll
  for (int kk = 0; kk < Cfg::kD / 16; ++kk) {
    const uint64_t desc_k = DescPlus(k0, (kk / 4) * Cfg::kBlockN * kSwizzleBytes + (kk % 4) * 32);
    Wgmma<Cfg::kBlockN, kBf16>::template Rs<false>(s_acc, q_frag[4 * kk], q_frag[4 * kk + 1],
                                                   q_frag[4 * kk + 2], q_frag[4 * kk + 3], desc_k,
                                                   kk > 0 ? 1u : 0u);
  }
  WgmmaCommit();
}

// O += P V for the block in ring slot s (issued, not waited).
// d = 128 steps its descriptors with DescPlus, as every S product does (the
// loop 525 -> 483 instructions, 0.9% faster in the lab, s11 run 3); at d = 64
// and 256 the same change to P V measured 0.4% and 0.2% slower, so they keep
// MakeDesc per wgmma here.
template <class Cfg, bool kBf16>
__device__ __forceinline__ void IssuePv(float (&o_acc)[Cfg::kD / 2], float (&l_acc)[4],
                                        const uint32_t (&p_frag)[Cfg::kBlockN / 4],
                                        const SmemMap<Cfg>& sm, int s) {
  const uint64_t v0 = MakeDesc(sm.v + s * Cfg::kKvBytes, Cfg::kBlockN * kSwizzleBytes);
  WgmmaFence();
#pragma unroll
  for (int kk = 0; kk < Cfg::kBlockN / 16; ++kk) {
    const uint64_t desc_v =
        Cfg::kD == 128 ? DescPlus(v0, kk * 16 * kSwizzleBytes)
                       : MakeDesc(sm.v + s * Cfg::kKvBytes + kk * 16 * kSwizzleBytes,
                                  Cfg::kBlockN * kSwizzleBytes);
    if constexpr (Cfg::kD == 64) {
      const uint32_t v_stage = sm.v + s * Cfg::kKvBytes;
      PvSumWgmma<kBf16>(o_acc, l_acc, p_frag[4 * kk], p_frag[4 * kk + 1], p_frag[4 * kk + 2],
                        p_frag[4 * kk + 3],
                        MakeDesc(v_stage + kk * 16 * kSwizzleBytes, sm.ones - v_stage));
    } else {
      Wgmma<Cfg::kD, kBf16>::Rs(o_acc, p_frag[4 * kk], p_frag[4 * kk + 1], p_frag[4 * kk + 2],
                                p_frag[4 * kk + 3], desc_v);
    }
  }
  WgmmaCommit();
}

// Whether key block n holds keys some row of the tile at m0 may not see:
// past s_k, or past the causal diagonal.
template <int kBlockN>
__device__ __forceinline__ bool NeedsMask(int n, int m0, const FwdParams& p) {
  return (n * kBlockN + kBlockN > p.s_k) ||
         (p.causal && n * kBlockN + kBlockN - 1 > m0 + p.s_k - p.s_q);
}

// Sets the scores of keys this thread's rows may not see to -inf.
template <int kBlockN>
__device__ __forceinline__ void MaskScores(float (&s_acc)[kBlockN / 2], int n,
                                           const ConsumerLane& cl, const FwdParams& p) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = cl.row_base + 8 * r;
    const int limit = p.causal ? min(p.s_k, row + p.s_k - p.s_q + 1) : p.s_k;
    // Keys are compared relative to this thread's first one, so that each
    // takes one compare with a constant.
    const int visible = limit - (n * kBlockN + 2 * cl.quad_col);
#pragma unroll
    for (int nn = 0; nn < kBlockN / 8; ++nn) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        if (nn * 8 + j >= visible) s_acc[nn * 4 + r * 2 + j] = -INFINITY;
      }
    }
  }
}

// The S accumulator layout of two adjacent 8-column chunks is exactly the
// A-operand register layout of one k16 step: pack pairs in order.
template <int kBlockN, bool kBf16>
__device__ __forceinline__ void ToP(const float (&s_acc)[kBlockN / 2],
                                    uint32_t (&p_frag)[kBlockN / 4]) {
#pragma unroll
  for (int i = 0; i < kBlockN / 4; ++i) p_frag[i] = PackPair<kBf16>(s_acc[2 * i], s_acc[2 * i + 1]);
}

// O *= correction, row by row, once the P V product writing O is done.
template <int D>
__device__ __forceinline__ void RescaleO(float (&o_acc)[D / 2], const float (&correction)[2]) {
#pragma unroll
  for (int dn = 0; dn < D / 8; ++dn) {
    o_acc[dn * 4 + 0] *= correction[0];
    o_acc[dn * 4 + 1] *= correction[0];
    o_acc[dn * 4 + 2] *= correction[1];
    o_acc[dn * 4 + 3] *= correction[1];
  }
}

// The softmax of a block that needs no mask, without its row max (the steady
// state). The caller has taken both rows' exponentials under the max kept
// from earlier blocks into p0 and p1 (ExpRowPacked), with this thread's part
// of each row's sum in blk. No probability of the block is over
// 2^kMaxStaleLog2 where that part sums to no more, and then StaleMaxStep
// keeps the max too; so the warp votes on the two sums and on rows with no
// key yet (max -inf), and only where the vote fires (scores that rose, a
// row's first keys) is the block taken again from S (into m_scaled, the max
// the caller's exponentials subtracted), with the maxima raised to the
// block's wherever its scores are above them, and O rescaled. Where the vote
// keeps, P, the sums and O are StaleMaxStep's to the bit, but where a
// probability lands within rounding of 2^kMaxStaleLog2 and the two tests
// differ (equally exact either way).
// Why any rise: a sum can pass 2^8 while no probability does, above all in a
// diagonal tile's top rows, whose max comes from the few keys they see in
// its first block. StaleMaxStep then kept that max (93-99% of firings raised
// nothing, fires.py, s22) and the warp fired again the next block and the
// next; each redo held up its warpgroup and the other consumer's turn (ncu:
// the turn barrier, s22 call 7), and long causal inputs ran 5% slower than
// with the max taken in every block. Raising the max to the block's on a
// firing: d = 128 causal s >= 2048 1.058-1.060 of FA3 against 0.936-0.939
// with StaleMaxStep there (lab, s22 call 8, H100, two passes).
// Measured against the max taken in every block (lab, s20, H100, both against
// FA3 in one process): d = 128 +2.5%, d = 64 +3.8% (+9% on inputs without the
// mask at s >= 2048); d = 256 even (with the vote in the masked blocks too).
// The masked blocks take the max first: with the vote there, d = 64 causal
// inputs ran 3-4% slower.
template <int D, int kBlockN, bool kBf16>
__device__ __forceinline__ void VoteOnSums(const float (&s_acc)[kBlockN / 2], const float (&blk)[2],
                                           uint32_t (&p0)[kBlockN / 8],
                                           uint32_t (&p1)[kBlockN / 8], float (&m_scaled)[2],
                                           float (&row_max)[2], float (&row_sum)[2],
                                           float (&correction)[2], float (&o_acc)[D / 2],
                                           float scale_log2) {
  constexpr float kMaxP = 1 << static_cast<int>(kMaxStaleLog2);
  const bool keep = blk[0] <= kMaxP && blk[1] <= kMaxP && row_max[0] != -INFINITY &&
                    row_max[1] != -INFINITY;
  if (__any_sync(0xffffffffu, !keep)) {
    const bool rescale =
        StaleMaxStep<kBlockN, true>(s_acc, row_max, m_scaled, correction, scale_log2);
    row_sum[0] = row_sum[0] * correction[0] +
                 ExpRowPacked<kBlockN, kBf16>(s_acc, 0, scale_log2, m_scaled[0], p0);
    row_sum[1] = row_sum[1] * correction[1] +
                 ExpRowPacked<kBlockN, kBf16>(s_acc, 1, scale_log2, m_scaled[1], p1);
    if (rescale) RescaleO<D>(o_acc, correction);
  } else {
    row_sum[0] += blk[0];
    row_sum[1] += blk[1];
  }
}

// Epilogue of a tile with at least one visible key: normalize and pack O,
// write it into shared memory in the TMA layout, and let one thread of the
// warpgroup store it with TMA (rows past s_q and columns past d are not
// written). Plain 4-byte stores from the accumulator layout cost 1.6 us per
// 128 x 128 tile on the H200, 17% of a tile at s = 512: each warp store
// wrote 16 bytes in each of 8 rows. Then the LSE, with plain stores.
// Where O goes out over the V ring, each consumer's rows take a slot whose V
// every consumer has released, and the producer stores them (RunProducer)
// once that consumer's o_full says they are written.
// Two of its steps the consumer took under its last P V already: each row's
// sum over its quad (d >= 128, whose sums are final before that P V; d = 64's
// come whole from the tensor pipe) and the wait for the O buffer's last store
// to be read (own buffer).
template <class Cfg, bool kBf16, bool kOverQ = false>
__device__ __forceinline__ void StoreTile(const float (&o_acc)[Cfg::kD / 2],
                                          const float (&row_max)[2], const float (&row_sum)[2],
                                          const TileCoord& tc, int m0, const ConsumerLane& cl,
                                          const SmemMap<Cfg>& sm,
                                          const CUtensorMap* tmap_o, const FwdParams& p,
                                          int kv_last = 0, int qs = 0) {
  constexpr int D = Cfg::kD;
  float inv[2];
  float lse[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = row_sum[r];
    inv[r] = sum > 0.f ? Rcp(sum) : 0.f;
    lse[r] = sum > 0.f ? (row_max[r] * p.scale_log2 + Log2(sum)) * kLn2 : -INFINITY;
  }
  const bool issuer = threadIdx.x % 128 == 0;
  // Own buffer: the consumers' rows interleaved in each 64-column chunk, free
  // once the previous tile's store has read it (the consumer waited for that
  // under its last P V). V ring: the last consumer's rows over the
  // slot of the tile's last V block (kv_last), the other's over the slot of the
  // block before, each free once every consumer has released that block (the
  // producer sent no V there since: it waits for these rows' store first).
  uint32_t stage = sm.o + cl.consumer * 64 * kSwizzleBytes;
  // Over Q (kOverQ, the tail launch at d = 256): the consumer's own Q rows,
  // whose chunks lie kRows rows apart; it stores them itself, and EndTile
  // releases Q once the store has read them.
  constexpr bool kSelfStore = Cfg::kOwnOBuffer || kOverQ;
  constexpr int kChunkBytes = kOverQ ? Cfg::kRows * kSwizzleBytes : Cfg::kOChunkBytes;
  if constexpr (kOverQ) {
    stage = sm.q + qs * Cfg::kQBytes + cl.consumer * 64 * kSwizzleBytes;
  } else if constexpr (!Cfg::kOwnOBuffer) {
    const int use = OStageBlock<Cfg>(kv_last, cl.consumer);
    stage = OStageAddr(sm, use);
    if (use >= 0) {
      MbarWait(sm.v_empty + 8 * OStageSlot<Cfg>(use), (use / Cfg::kStages) & 1);
    }
  }
  const int t = threadIdx.x % 128;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = (t / 32) * 16 + t % 32 / 4 + 8 * r;  // within the consumer's 64
#pragma unroll
    for (int dn = 0; dn < D / 8; ++dn) {
      const uint32_t addr = stage + (dn / 8) * kChunkBytes + row * kSwizzleBytes +
                            (((dn % 8) ^ (row % 8)) * 16) + cl.quad_col * 4;
      const uint32_t v = PackPair<kBf16>(o_acc[dn * 4 + r * 2] * inv[r],
                                         o_acc[dn * 4 + r * 2 + 1] * inv[r]);
      asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
    }
  }
  FenceProxyAsync();
  if constexpr (kSelfStore) {
    ConsumerSync(cl.consumer);
    StoreORowsIf<Cfg>(issuer, tmap_o, stage, kChunkBytes, tc, m0 + cl.consumer * 64);
    BulkCommitIf(issuer);
  } else {
    // The producer stores it (RunProducer's store_rows).
    __syncwarp();
    MbarArriveIf(sm.o_full + 8 * cl.consumer, cl.lane == 0);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = cl.row_base + 8 * r;
    StoreF32If(row < p.s_q && cl.quad_col == 0,
               p.lse + tc.batch * p.lse_stride_b + tc.head * p.lse_stride_h + row * p.lse_stride_s,
               lse[r]);
  }
}

// Whether `pred` is set in any thread of one consumer warpgroup (a
// reduction on its named barrier). The vote tells ptxas the result is the
// same in every thread of a warp, so that a branch on it is not divergent:
// a divergent branch anywhere in a consumer's tile made ptxas compute every
// wgmma descriptor per thread, and the kernel ran 8% slower (s5-run03).
__device__ __forceinline__ bool ConsumerAny(int consumer, bool pred) {
  uint32_t any;
  asm volatile(
      "{\n.reg .pred p, q;\nsetp.ne.b32 p, %1, 0;\n"
      "bar.red.or.pred q, %2, 128, p;\nselp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(any)
      : "r"(static_cast<uint32_t>(pred)), "r"(4 + consumer)
      : "memory");
  return __any_sync(0xffffffffu, any != 0);
}

// atomicAdd by the threads whose `pred` is set, as a predicated instruction
// (no branch, for the reason above).
__device__ __forceinline__ int AtomicAddIf(bool pred, int* ptr, int value) {
  int old;
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %3, 0;\nmov.b32 %0, 0;\n"
      "@p atom.global.add.s32 %0, [%1], %2;\n}\n"
      : "=r"(old)
      : "l"(ptr), "r"(value), "r"(static_cast<uint32_t>(pred))
      : "memory");
  return old;
}

// The end of one consumer's rows of a piece of a split tile (tail launch). The
// piece's partial result goes to its slot in ta.partials, thread by thread in
// the accumulator layout (O unnormalized, then the row max and this thread's
// share of the row sum), and the tile's counter counts it. The consumer that
// counts the last piece merges every piece's partial, its own included, in
// piece order, so the result does not depend on which piece finished last,
// and stores the tile.
template <class Cfg, bool kBf16, int kConsumers, bool kOverQ>
__device__ __forceinline__ void FinishPiece(float (&o_acc)[Cfg::kD / 2], float (&row_max)[2],
                                            float (&row_sum)[2], const TailPiece& w,
                                            const TileCoord& tc, int m0, const ConsumerLane& cl,
                                            const SmemMap<Cfg>& sm,
                                            const CUtensorMap* tmap_o, const FwdParams& p,
                                            const WalkArgs<Walk::kTail>& ta, int qs) {
  constexpr int D = Cfg::kD;
  constexpr int kVecs = D / 8 + 1;  // float4s per thread
  const int t = threadIdx.x % 128;
  auto slot = [&](int piece) {
    return reinterpret_cast<float4*>(ta.partials) +
           (static_cast<int64_t>(w.slot + piece) * kConsumers + cl.consumer) * kVecs * 128 + t;
  };
  float4* mine = slot(w.piece);
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    mine[j * 128] = make_float4(o_acc[4 * j], o_acc[4 * j + 1], o_acc[4 * j + 2], o_acc[4 * j + 3]);
  }
  mine[(D / 8) * 128] = make_float4(row_max[0], row_max[1], row_sum[0], row_sum[1]);
  __threadfence();
  ConsumerSync(cl.consumer);
  int* counter = ta.counters + w.tile * kConsumers + cl.consumer;
  const int done = AtomicAddIf(t == 0, counter, 1);
  if (!ConsumerAny(cl.consumer, t == 0 && done == w.pieces - 1)) return;
  __threadfence();
  float m[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < w.pieces; ++i) {
    const float4 stats = __ldcg(slot(i) + (D / 8) * 128);
    m[0] = fmaxf(m[0], stats.x);
    m[1] = fmaxf(m[1], stats.y);
  }
  float m_scaled[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    m_scaled[r] = m[r] == -INFINITY ? 0.f : m[r] * p.scale_log2;
    row_max[r] = m[r];
    row_sum[r] = 0.f;
  }
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.f;
  for (int i = 0; i < w.pieces; ++i) {
    const float4* src = slot(i);
    const float4 stats = __ldcg(src + (D / 8) * 128);
    const float c0 = Exp2(stats.x * p.scale_log2 - m_scaled[0]);
    const float c1 = Exp2(stats.y * p.scale_log2 - m_scaled[1]);
    row_sum[0] += stats.z * c0;
    row_sum[1] += stats.w * c1;
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      const float4 v = __ldcg(src + j * 128);
      o_acc[4 * j] += v.x * c0;
      o_acc[4 * j + 1] += v.y * c0;
      o_acc[4 * j + 2] += v.z * c1;
      o_acc[4 * j + 3] += v.w * c1;
    }
  }
  StoreTile<Cfg, kBf16, kOverQ>(o_acc, row_max, row_sum, tc, m0, cl, sm, tmap_o, p, 0, qs);
}

// A tile's end: its store, or for a piece of a split tile (tail launch)
// FinishPiece.
template <class Cfg, bool kBf16, int kConsumers, Walk kWalk>
__device__ __forceinline__ void EndTile(float (&o_acc)[Cfg::kD / 2], float (&row_max)[2],
                                        float (&row_sum)[2], const TailPiece& piece,
                                        const TileCoord& tc, int m0, const ConsumerLane& cl,
                                        const SmemMap<Cfg>& sm, const CUtensorMap* tmap_o,
                                        const FwdParams& p, const WalkArgs<kWalk>& wa,
                                        int kv_last, int qs) {
  if constexpr (kWalk == Walk::kTail) {
    constexpr bool kOverQ = !Cfg::kOwnOBuffer;
    if (piece.pieces == 1) {
      StoreTile<Cfg, kBf16, kOverQ>(o_acc, row_max, row_sum, tc, m0, cl, sm, tmap_o, p, 0, qs);
    } else {
      FinishPiece<Cfg, kBf16, kConsumers, kOverQ>(o_acc, row_max, row_sum, piece, tc, m0, cl, sm,
                                                  tmap_o, p, wa, qs);
    }
    if constexpr (kOverQ) {
      // Q is free once this consumer's O rows staged over it are read.
      BulkWaitReadIf(threadIdx.x % 128 == 0);
      ConsumerSync(cl.consumer);
      MbarArriveIf(sm.QEmpty(qs, cl.consumer), cl.lane == 0);
    }
  } else {
    StoreTile<Cfg, kBf16>(o_acc, row_max, row_sum, tc, m0, cl, sm, tmap_o, p, kv_last);
  }
}

// A tile whose rows see no key (causal, s_q > s_k): O = 0 and LSE = -inf,
// with plain stores (no Q was loaded for it, so there is no buffer to stage
// through). Rare; never on the perf grid.
template <int D, bool kBf16>
__device__ __forceinline__ void StoreEmptyTile(const TileCoord& tc, const ConsumerLane& cl,
                                               const FwdParams& p) {
  using Elem = typename std::conditional<kBf16, __nv_bfloat16, __half>::type;
  Elem* o_base = static_cast<Elem*>(p.o) + tc.batch * p.o_stride_b + tc.head * p.o_stride_h;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = cl.row_base + 8 * r;
    if (row >= p.s_q) continue;
    Elem* o_row = o_base + row * p.o_stride_s;
#pragma unroll 1
    for (int dn = 0; dn < D / 8; ++dn) {
      const int col = dn * 8 + 2 * cl.quad_col;
      if (col < p.d) *reinterpret_cast<uint32_t*>(o_row + col) = 0u;
    }
    if (cl.quad_col == 0) {
      p.lse[tc.batch * p.lse_stride_b + tc.head * p.lse_stride_h + row * p.lse_stride_s] =
          -INFINITY;
    }
  }
}

// The pingpong: consumer warpgroups take turns issuing their matrix
// products on named barriers 1..kConsumers (turn passed 0 -> 1 [-> 2] -> 0),
// so one's softmax runs while the others' products keep the tensor cores
// busy; each barrier counts the waiting warpgroup and the one handing over.
// The barrier ids are immediates: passed in a register, they made ptxas
// rebuild the wgmma descriptors in every thread (the loop grew by 30%).
template <int kConsumers>
__device__ __forceinline__ void WaitTurn(int consumer) {
  if (consumer == 0) {
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
  } else if (kConsumers == 2 || consumer == 1) {
    asm volatile("bar.sync 2, 256;\n" ::: "memory");
  } else {
    asm volatile("bar.sync 3, 256;\n" ::: "memory");
  }
}

template <int kConsumers>
__device__ __forceinline__ void PassTurn(int consumer) {
  if (consumer == kConsumers - 1) {
    asm volatile("bar.arrive 1, 256;\n" ::: "memory");
  } else if (kConsumers == 2 || consumer == 0) {
    asm volatile("bar.arrive 2, 256;\n" ::: "memory");
  } else {
    asm volatile("bar.arrive 3, 256;\n" ::: "memory");
  }
}

// The kernel: warpgroup 0 the producer, kConsumers consumer warpgroups of 64
// query rows each. Per tile, a consumer issues S of the first key block, then
// for every next block S of that block with P V of the previous one behind
// it, and the softmax of the new S while P V runs.
//  - d >= 128: the softmax overlaps the consumer's own P V (ptxas is kept
//    from hoisting the wait for P V above it).
//  - d = 64: the softmax after both products (the exponentials bound the
//    kernel there, and the overlap measured slower); three consumers
//    (192-row tiles) or two.
// kWalk: how the CTAs find their tiles (TileWalk), with WalkArgs.
template <int D, int kBlockN, bool kBf16, int kConsumers, Walk kWalk>
__global__ void __launch_bounds__(128 * (kConsumers + 1), 1)
    AttentionFwdKernel(const __grid_constant__ CUtensorMap tmap_q,
                       const __grid_constant__ CUtensorMap tmap_k,
                       const __grid_constant__ CUtensorMap tmap_v,
                       const __grid_constant__ CUtensorMap tmap_o, const FwdParams p,
                       const __grid_constant__ WalkArgs<kWalk> wa) {
  using Cfg = TileConfig<D, kBlockN, 64 * kConsumers>;
  constexpr int kStages = Cfg::kStages;
  constexpr int kQStages = Cfg::kQStages;
  constexpr bool kSerialSoftmax = D == 64;
  // d = 128 keeps its Q rows in registers (32 per thread) for the S
  // products: Q is read from shared memory once per tile instead of once per
  // block, and its buffer comes free as soon as it is read. Measured 2-4%
  // faster on long inputs run back to back, at a higher clock for the same
  // power. d = 256 has no registers to spare (O alone takes 128).
  constexpr bool kQRegs = D == 128;
  // The row max raised only when the scores outgrow it by 2^8, and O
  // rescaled only then (StaleMaxStep): 4% faster at d = 128 and 3% at d = 256
  // in the lab (s9 runs 1 and 2). At d = 64, where the exponentials bound
  // the loop, that step (a max before the exponentials) was 1.6% slower, so
  // there the first and the masked blocks of a tile follow the max; the
  // blocks that need no mask keep it at every d, taking no max at all
  // (VoteOnSums).
  constexpr bool kStaleMax = !kSerialSoftmax;
  // With two Q buffers the producer issues the next tile's Q early (measured
  // 2% faster at s <= 1024 and 1% at s >= 4096 than after the tile's last
  // K/V block; for d = 64 it measured 1% slower, so that kernel keeps the
  // late Q).
  constexpr bool kTail = kWalk == Walk::kTail;
  constexpr bool kEarlyQ = !kSerialSoftmax && kQStages == 2 && Cfg::kOwnOBuffer && !kTail;
  // K of the next block issued ahead of V of this one (RunProducer): at
  // d = 256 0-1.8% faster per input (+0.5% over its perf grid, s14 run 8;
  // +0.5% again in both passes of s15 run 1, +1.6% causal s <= 1024), at
  // d = 64 0.2-1.5% slower (s14 run 8). At d = 128 even in s14 run 8, and
  // 0.2-0.3% faster in three passes of s39 (ka128), most at s <= 1024,
  // where the next tile's first K then lands before the last tile ends.
  constexpr bool kKAhead = D >= 128;
  // Where Q is read from shared memory, its buffer is released once the
  // tile's last S product has completed, unless O goes out through it (the
  // tail launch without an own O buffer: EndTile releases Q after the store).
  constexpr bool kReleaseQAfterS = !kQRegs && !(kTail && !Cfg::kOwnOBuffer);

  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const SmemMap<Cfg> sm(smem_raw);
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) sm.InitBarriers(4 * kConsumers);
  if constexpr (D == 64) {
    const uint32_t one2 = kBf16 ? 0x3F803F80u : 0x3C003C00u;
    for (int i = threadIdx.x; i < Cfg::kOnesBytes / 4; i += blockDim.x) {
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(sm.ones + 4 * i), "r"(one2) : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();
  // The tail launch is a programmatic dependent of the first (LaunchFast):
  // once every CTA of the first has started, the tail's CTAs take each
  // multiprocessor as it comes free. The tail reads nothing the first
  // writes; its wait only keeps the stream's next work behind both.
  if constexpr (!kTail) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");

  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n" ::: "memory");
    if (threadIdx.x == 0) {
      RunProducer<Cfg, kEarlyQ, kKAhead, kWalk>(sm, &tmap_q, &tmap_k, &tmap_v, &tmap_o, p, wa);
      // A launch that is a programmatic dependent (the tail, a list launch
      // after another) completes after the one before, so that the stream's
      // next work waits for them all.
      if constexpr (kWalk != Walk::kUnits) asm volatile("griddepcontrol.wait;\n" ::: "memory");
    }
    return;
  }

  // The increase must be paid exactly by the producer's decrease, or it never
  // completes: three consumers launch at 128 registers (512 threads), and
  // 128 x (128 - 24) = 3 x 128 x (160 - 128); two launch at 168 (384 threads),
  // and 128 x (168 - 24) = 2 x 128 x (240 - 168). (A producer at 32 hung the
  // two-consumer kernels on the H200.)
  if constexpr (kConsumers == 3) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 160;\n" ::: "memory");
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n" ::: "memory");
  }
  // Warp-uniform for ptxas (a warp reduction writes a uniform register), so
  // that the shared memory descriptors built from it stay uniform too.
  const int consumer = __reduce_max_sync(0xffffffffu, warpgroup - 1);
  // The last consumer lets consumer 0 go first.
  if (consumer == kConsumers - 1) PassTurn<kConsumers>(consumer);

  int kv_iter = 0;
  int q_iter = 0;  // tiles with keys done so far; this tile's Q is in buffer q_iter % kQStages
  float o_acc[D / 2];
  float l_acc[4];  // d = 64: each row's sum of P, from the tensor pipe
  float row_max[2], row_sum[2];
  float s_acc[kBlockN / 2];
  uint32_t p_frag[kBlockN / 4];
  float correction[2];
  uint32_t q_frag[kQRegs ? D / 4 : 1];
  auto issue_s = [&](int qs, int stage) {
    if constexpr (kQRegs) {
      IssueQkRegs<Cfg, kBf16>(s_acc, q_frag, sm, stage);
    } else {
      IssueQk<Cfg, kBf16>(s_acc, sm, qs, consumer, stage);
    }
  };
  TileWalk<kBlockN, Cfg::kRows, kWalk> walk(p, wa);
  WorkTile t;
  while (walk.Next(&t)) {
    const TileCoord& tc = t.tc;
    const int n_blocks = t.n_blocks;
    const int it_begin = t.it_begin;
    const int it_end = t.it_end;
    const int m0 = tc.m_tile * Cfg::kRows;
    const ConsumerLane cl(consumer, m0);
    if (it_begin == it_end) {
      StoreEmptyTile<D, kBf16>(tc, cl, p);
      continue;
    }
    const int qs = q_iter % kQStages;
    int s = kv_iter % kStages;
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.f;
    if constexpr (D == 64) l_acc[0] = l_acc[1] = l_acc[2] = l_acc[3] = 0.f;
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
    MbarWait(sm.QFull(qs, consumer), (q_iter / kQStages) & 1);
    if constexpr (kQRegs) {
      LoadQFrag<Cfg>(q_frag, sm, qs, consumer);
      MbarArriveIf(sm.QEmpty(qs, consumer), cl.lane == 0);
    }
    MbarWait(sm.k_full + 8 * s, (kv_iter / kStages) & 1);
    WaitTurn<kConsumers>(consumer);
    issue_s(qs, s);
    PassTurn<kConsumers>(consumer);
    WgmmaWait<0>();
    FenceRegs(s_acc);
    MbarArriveIf(sm.k_empty + 8 * s, cl.lane == 0);
    if constexpr (kReleaseQAfterS) {
      MbarArriveIf(sm.QEmpty(qs, consumer), cl.lane == 0 && it_end - it_begin == 1);
    }
    const int n_first = n_blocks - 1 - it_begin;
    if (NeedsMask<kBlockN>(n_first, m0, p)) {
      MaskScores<kBlockN>(s_acc, n_first, cl, p);
    }
    SoftmaxStep<kBlockN, kStaleMax>(s_acc, row_max, row_sum, correction, p.scale_log2);
    ToP<kBlockN, kBf16>(s_acc, p_frag);

    // Steady state: S of block it is issued, then P V of block it-1 behind
    // it; the softmax of block it follows, and O is rescaled once P V is
    // done. Blocks that need the mask come first (highest keys); they get
    // their own copy of the loop so that neither copy branches between issue
    // and softmax.
    auto step = [&](auto masked, int it) {
      const int s_next = (kv_iter + 1) % kStages;
      MbarWait(sm.k_full + 8 * s_next, ((kv_iter + 1) / kStages) & 1);
      MbarWait(sm.v_full + 8 * s, (kv_iter / kStages) & 1);
      WaitTurn<kConsumers>(consumer);
      issue_s(qs, s_next);
      FenceRegs(o_acc);
      IssuePv<Cfg, kBf16>(o_acc, l_acc, p_frag, sm, s);
      PassTurn<kConsumers>(consumer);
      WgmmaWait<1>();
      FenceRegs(s_acc);
      MbarArriveIf(sm.k_empty + 8 * s_next, cl.lane == 0);
      if constexpr (kReleaseQAfterS) {
        MbarArriveIf(sm.QEmpty(qs, consumer), cl.lane == 0 && it == it_end - 1);
      }
      if constexpr (decltype(masked)::value) MaskScores<kBlockN>(s_acc, n_blocks - 1 - it, cl, p);
      if constexpr (!decltype(masked)::value && kStaleMax) {
        // d >= 128 (VoteOnSums): row 0's exponentials under the kept max
        // while P V runs, into a P of its own (P V still reads p_frag), then
        // the wait for P V, then row 1's and the warp's vote.
        float m_scaled[2], blk[2];
        uint32_t p0[kBlockN / 8], p1[kBlockN / 8];
        m_scaled[0] = ScaledMax(row_max[0], p.scale_log2);
        m_scaled[1] = ScaledMax(row_max[1], p.scale_log2);
        blk[0] = ExpRowPacked<kBlockN, kBf16>(s_acc, 0, p.scale_log2, m_scaled[0], p0);
        // Keep row 0 above the wait for P V, as below; the branch reads P's
        // row 0 too, or ptxas sinks its packing below the wait and keeps the
        // exponentials in fp32 across it (spills at d = 128).
        FenceRegs(s_acc);
        FenceRegs(p0);
        FenceRegs(blk);
        FenceRegs(m_scaled);
        uint32_t p0_all = p0[0];
#pragma unroll
        for (int nn = 1; nn < kBlockN / 8; ++nn) p0_all &= p0[nn];
        if ((__float_as_uint(blk[0]) & p0_all) == 0xffffffffu) {
          asm volatile("nanosleep.u32 1;" ::: "memory");
        }
        WgmmaWait<0>();
        FenceRegs(o_acc);
        MbarArriveIf(sm.v_empty + 8 * s, cl.lane == 0);
        const float m1 = fmaf(o_acc[0], 0.f, m_scaled[1]);  // as below
        blk[1] = ExpRowPacked<kBlockN, kBf16>(s_acc, 1, p.scale_log2, m1, p1);
        VoteOnSums<D, kBlockN, kBf16>(s_acc, blk, p0, p1, m_scaled, row_max, row_sum,
                                         correction, o_acc, p.scale_log2);
#pragma unroll
        for (int nn = 0; nn < kBlockN / 8; ++nn) {
          p_frag[2 * nn] = CopyReg(p0[nn]);
          p_frag[2 * nn + 1] = p1[nn];
        }
      } else if constexpr (!decltype(masked)::value) {
        // d = 64 after both products. The sums come from the tensor pipe
        // (l_acc), so the warp votes on P's largest value instead: the max is
        // kept where no probability is over 2^kMaxStaleLog2 and both rows have
        // seen a key (positive bf16 and fp16 order as unsigned integers).
        // d = 64 is bound by instruction issue, and this takes the row sums'
        // adds off it: +1.6% and +1.4% over the 12 d = 64 scenarios against
        // FA3 (H100, two interleaved passes). The same sums from a separate
        // m64n8 wgmma, with P V left at n = 64, were 0.4% slower than the
        // FMA sums in both passes.
        WgmmaWait<0>();
        FenceRegs(o_acc);
        FenceRegs(l_acc);
        MbarArriveIf(sm.v_empty + 8 * s, cl.lane == 0);
        float m_scaled[2];
        uint32_t p0[kBlockN / 8], p1[kBlockN / 8];
        m_scaled[0] = ScaledMax(row_max[0], p.scale_log2);
        m_scaled[1] = ScaledMax(row_max[1], p.scale_log2);
        ExpRowPacked<kBlockN, kBf16>(s_acc, 0, p.scale_log2, m_scaled[0], p0);
        ExpRowPacked<kBlockN, kBf16>(s_acc, 1, p.scale_log2, m_scaled[1], p1);
        uint32_t pmax = p0[0];
#pragma unroll
        for (int nn = 1; nn < kBlockN / 8; ++nn) {
          asm("max.u16x2 %0, %0, %1;" : "+r"(pmax) : "r"(p0[nn]));
        }
#pragma unroll
        for (int nn = 0; nn < kBlockN / 8; ++nn) {
          asm("max.u16x2 %0, %0, %1;" : "+r"(pmax) : "r"(p1[nn]));
        }
        constexpr uint32_t kMaxPBits = kBf16 ? 0x4380u : 0x5C00u;  // 2^8
        const bool keep = (pmax & 0xFFFFu) <= kMaxPBits && (pmax >> 16) <= kMaxPBits &&
                          row_max[0] != -INFINITY && row_max[1] != -INFINITY;
        if (__any_sync(0xffffffffu, !keep)) {
          const bool rescale =
              StaleMaxStep<kBlockN, true>(s_acc, row_max, m_scaled, correction, p.scale_log2);
          ExpRowPacked<kBlockN, kBf16>(s_acc, 0, p.scale_log2, m_scaled[0], p0);
          ExpRowPacked<kBlockN, kBf16>(s_acc, 1, p.scale_log2, m_scaled[1], p1);
          if (rescale) {
            RescaleO<D>(o_acc, correction);
            RescaleO<8>(l_acc, correction);
          }
        }
#pragma unroll
        for (int nn = 0; nn < kBlockN / 8; ++nn) {
          p_frag[2 * nn] = p0[nn];
          p_frag[2 * nn + 1] = p1[nn];
        }
      } else if constexpr (kStaleMax) {
        // The masked blocks (the diagonal's, the last partial one), d >= 128:
        // the row max first (StaleMaxStep). Row 0's exponentials while P V
        // runs, then the wait for it, then row 1's with P's packing spread
        // among them (FA3's order; 2.3% and 2.6% faster at d = 128 than all
        // exponentials before the wait and the packing after, d = 256 even,
        // s16 run 8).
        float m_scaled[2];
        const bool rescale =
            StaleMaxStep<kBlockN>(s_acc, row_max, m_scaled, correction, p.scale_log2);
        row_sum[0] = row_sum[0] * correction[0] +
                     ExpRow<kBlockN, 1>(s_acc, 0, p.scale_log2, m_scaled[0]);
        // Keep row 0 above the wait for P V: arithmetic is free to move past
        // a volatile asm.
        FenceRegs(s_acc);
        FenceRegs(row_sum);
        FenceRegs(m_scaled);
        FenceRegs(correction);
        // ptxas hoists a wgmma wait to the top of its basic block, above
        // the softmax, which kills the overlap; a branch on the softmax
        // result ends the block. It is never taken (the GPU's fp32 NaN is
        // 0x7fffffff) and harmless if it were. (A trap here instead makes
        // ptxas serialize every wgmma.)
        if (__float_as_uint(row_sum[0]) == 0xffffffffu) {
          asm volatile("nanosleep.u32 1;" ::: "memory");
        }
        WgmmaWait<0>();
        FenceRegs(o_acc);
        MbarArriveIf(sm.v_empty + 8 * s, cl.lane == 0);
        // Row 1's max made to depend on O (0 x a finite value), or ptxas
        // hoists its exponentials above the branch and the wait. (Where V
        // holds an inf or NaN, O[0] can be one, and this row's output is then
        // NaN in every column rather than in that column alone.)
        const float m1 = fmaf(o_acc[0], 0.f, m_scaled[1]);
        row_sum[1] = row_sum[1] * correction[1] +
                     ExpRow<kBlockN, 1>(s_acc, 1, p.scale_log2, m1);
        ToP<kBlockN, kBf16>(s_acc, p_frag);
        if (rescale) RescaleO<D>(o_acc, correction);
      } else {
        // The masked copy at d = 64: the max follows the scores.
        SoftmaxStep<kBlockN, false>(s_acc, row_max, row_sum, correction, p.scale_log2);
        WgmmaWait<0>();
        FenceRegs(o_acc);
        FenceRegs(l_acc);
        MbarArriveIf(sm.v_empty + 8 * s, cl.lane == 0);
        RescaleO<D>(o_acc, correction);
        RescaleO<8>(l_acc, correction);
        ToP<kBlockN, kBf16>(s_acc, p_frag);
      }
      ++kv_iter;
      s = s_next;
    };
    // The masked copy takes the blocks that need the mask. (Running it one
    // block further at d = 64 gave a diagonal tile's top rows a whole
    // block's max and won 6% on long causal inputs while the vote's redo
    // kept the old max; once a firing raises the max to the block's, that
    // extra block cost 3% on causal s <= 1024: lab, s23, H100, four passes.)
    int it = it_begin + 1;
    for (; it < it_end && NeedsMask<kBlockN>(n_blocks - 1 - it, m0, p); ++it) {
      step(std::true_type(), it);
    }
    for (; it < it_end; ++it) step(std::false_type(), it);

    MbarWait(sm.v_full + 8 * s, (kv_iter / kStages) & 1);
    WaitTurn<kConsumers>(consumer);
    FenceRegs(o_acc);
    IssuePv<Cfg, kBf16>(o_acc, l_acc, p_frag, sm, s);
    PassTurn<kConsumers>(consumer);
    // The epilogue's first steps, under the last P V: the row sums over
    // each quad (d >= 128) and the wait for the O buffer (own buffer). With
    // kKAhead at d = 128, 0.5-0.7% faster over d = 128's perf grid in three
    // passes (2.6-3.0% at full s <= 1024), 0.3-0.5% over d = 64 (1-2% at
    // causal s <= 1024), d = 256 even (lab epka, s39, H100, each pass one
    // process, interleaved with FA3; the tail launch's kernels then kept
    // them after the wait: lab ept).
    if constexpr (D != 64) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 1);
        row_sum[r] += __shfl_xor_sync(0xffffffffu, row_sum[r], 2);
      }
      FenceRegs(row_sum);
    }
    if constexpr (Cfg::kOwnOBuffer) {
      BulkWaitReadIf(threadIdx.x % 128 == 0);
      ConsumerSync(consumer);
    }
    WgmmaWait<0>();
    FenceRegs(o_acc);
    MbarArriveIf(sm.v_empty + 8 * s, cl.lane == 0);
    ++kv_iter;
    if constexpr (D == 64) {
      FenceRegs(l_acc);
      // Every lane of a quad holds its rows' whole sums (the ones block's
      // eight columns each sum the row).
      row_sum[0] = l_acc[0];
      row_sum[1] = l_acc[2];
    }
    EndTile<Cfg, kBf16, kConsumers>(o_acc, row_max, row_sum, t.piece, tc, m0, cl, sm, &tmap_o,
                                    p, wa, kv_iter - 1, qs);
    ++q_iter;
  }
  // The last stores must be done before the CTA's shared memory goes away.
  if (threadIdx.x % 128 == 0) BulkWait();
  // Consume the last consumer's final hand-over so no arrival is left pending.
  if (consumer == 0) WaitTurn<kConsumers>(consumer);
}

// ---------------------------------------------------------------------------
// Simple path: one warp per query row, any strides. Correct, not fast.

struct SimpleParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  int64_t q_stride[4], k_stride[4], v_stride[4], o_stride[4], lse_stride[3];
  int batch, heads, heads_kv, s_q, s_k, d, causal;
  float scale;
};

template <typename T>
__device__ __forceinline__ float ToFloat(T x);
template <>
__device__ __forceinline__ float ToFloat<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
template <>
__device__ __forceinline__ float ToFloat<__half>(__half x) {
  return __half2float(x);
}
template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}

constexpr int kSimpleMaxPerLane = 8;  // d <= 256

template <typename T>
__global__ void AttentionFwdSimpleKernel(const SimpleParams p) {
  const int64_t row_id = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const int64_t rows = static_cast<int64_t>(p.batch) * p.heads * p.s_q;
  if (row_id >= rows) return;
  const int i = static_cast<int>(row_id % p.s_q);
  const int h = static_cast<int>((row_id / p.s_q) % p.heads);
  const int b = static_cast<int>(row_id / (static_cast<int64_t>(p.s_q) * p.heads));
  const int h_kv = h / (p.heads / p.heads_kv);
  const T* q = static_cast<const T*>(p.q) + b * p.q_stride[0] + i * p.q_stride[1] + h * p.q_stride[2];
  const T* k = static_cast<const T*>(p.k) + b * p.k_stride[0] + h_kv * p.k_stride[2];
  const T* v = static_cast<const T*>(p.v) + b * p.v_stride[0] + h_kv * p.v_stride[2];
  float q_reg[kSimpleMaxPerLane];
  float o_reg[kSimpleMaxPerLane];
#pragma unroll
  for (int e = 0; e < kSimpleMaxPerLane; ++e) {
    const int col = lane + 32 * e;
    q_reg[e] = col < p.d ? ToFloat(q[col * p.q_stride[3]]) : 0.f;
    o_reg[e] = 0.f;
  }
  const int limit = p.causal ? min(p.s_k, i + p.s_k - p.s_q + 1) : p.s_k;
  float m = -INFINITY;
  float l = 0.f;
  for (int j = 0; j < limit; ++j) {
    float dot = 0.f;
#pragma unroll
    for (int e = 0; e < kSimpleMaxPerLane; ++e) {
      const int col = lane + 32 * e;
      if (col < p.d) dot += q_reg[e] * ToFloat(k[j * p.k_stride[1] + col * p.k_stride[3]]);
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float s = dot * p.scale;
    const float m_new = fmaxf(m, s);
    const float correction = expf(m - m_new);
    const float e_s = expf(s - m_new);
    l = l * correction + e_s;
#pragma unroll
    for (int e = 0; e < kSimpleMaxPerLane; ++e) {
      const int col = lane + 32 * e;
      const float v_val = col < p.d ? ToFloat(v[j * p.v_stride[1] + col * p.v_stride[3]]) : 0.f;
      o_reg[e] = o_reg[e] * correction + e_s * v_val;
    }
    m = m_new;
  }
  T* o = static_cast<T*>(p.o) + b * p.o_stride[0] + i * p.o_stride[1] + h * p.o_stride[2];
  const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
  for (int e = 0; e < kSimpleMaxPerLane; ++e) {
    const int col = lane + 32 * e;
    if (col < p.d) o[col * p.o_stride[3]] = FromFloat<T>(o_reg[e] * inv);
  }
  if (lane == 0) {
    p.lse[b * p.lse_stride[0] + h * p.lse_stride[1] + i * p.lse_stride[2]] =
        l > 0.f ? m + logf(l) : -INFINITY;
  }
}

// ---------------------------------------------------------------------------
// Host side.

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                   const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                   const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiledFn GetEncodeTiled() {
  // Resolved once; the runtime returns the same driver entry point each time.
  static EncodeTiledFn fn = []() -> EncodeTiledFn {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult status;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      return nullptr;
    }
    return reinterpret_cast<EncodeTiledFn>(ptr);
  }();
  return fn;
}

// A [b, s, h, d] tensor as a 4-d TMA map (d innermost) with boxes of
// 64 columns x rows, 128-byte swizzled; out-of-range elements read as zero.
bool EncodeBhsd(EncodeTiledFn encode, CUtensorMap* map, const KseekTensor& t, bool bf16,
                int box_rows) {
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(t.shape[3]),
                              static_cast<cuuint64_t>(t.shape[2]),
                              static_cast<cuuint64_t>(t.shape[1]),
                              static_cast<cuuint64_t>(t.shape[0])};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(t.stride[2]) * 2,
                                 static_cast<cuuint64_t>(t.stride[1]) * 2,
                                 static_cast<cuuint64_t>(t.stride[0]) * 2};
  const cuuint32_t box[4] = {64, 1, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  const CUresult r = encode(
      map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, t.data,
      dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

// The tail launch's plan: which pieces of the leftover units each CTA
// computes, and how many split tiles and partial slots they need. Sets
// p->whole_units: every unit where no tile is long enough to split.
struct TailPlan {
  std::vector<TailPiece> pieces;  // kMaxCtaPieces per CTA; empty: no tail launch
  int split_tiles = 0;
  int slots = 0;  // partial results, one per piece of a split tile
};

template <int kBlockN, int kRows, int kMinSplitBlocks>
TailPlan PlanTail(int grid, FwdParams* p) {
  TailPlan plan;
  const int units = NumUnits(*p);
  p->whole_units = units / grid * grid;
  struct Tile {
    int unit, sub, start, blocks;
  };
  std::vector<Tile> tiles;  // the leftover units' tiles with keys, in walk order
  std::vector<Tile> empty;  // and those without (causal, s_q > s_k)
  int total = 0;
  int most = 0;
  for (int unit = p->whole_units; unit < units; ++unit) {
    for (int sub = 0; sub < TilesInUnit(unit, *p); ++sub) {
      const int blocks = KvBlocks<kBlockN, kRows>(UnitTile(unit, sub, *p).m_tile * kRows, *p);
      (blocks > 0 ? tiles : empty).push_back({unit, sub, total, blocks});
      total += blocks;
      most = blocks > most ? blocks : most;
    }
  }
  if (kMinSplitBlocks == 0 || most < kMinSplitBlocks) {
    p->whole_units = units;
    return plan;
  }
  // Each CTA takes `share` consecutive key blocks of the leftover tiles: as
  // few as spreads them over every CTA, but enough that no tile is cut into
  // more than kMaxTilePieces pieces, nor any CTA's range into more than
  // kMaxCtaPieces (counting the tiles without keys, placed where room is
  // left).
  int share = (total + grid - 1) / grid;
  const int fewest = (most + kMaxTilePieces - 2) / (kMaxTilePieces - 1);
  share = share > fewest ? share : fewest;
  // Past `most`, no tile is cut and a longer share only puts more pieces on
  // a CTA. Many short tiles (causal, s_q > s_k) may fit no share: then the
  // leftover runs whole (the loop had no bound before s13, and hung there).
  const int last_share = share > most ? share : most;
  std::vector<int> count;
  for (; share <= last_share; ++share) {
    plan.pieces.assign(static_cast<size_t>(grid) * kMaxCtaPieces, TailPiece{});
    count.assign(grid, 0);
    plan.split_tiles = 0;
    plan.slots = 0;
    bool fits = true;
    auto place = [&](int cta, const TailPiece& tp) {
      fits = fits && cta < grid && count[cta] < kMaxCtaPieces;
      if (fits) plan.pieces[static_cast<size_t>(cta) * kMaxCtaPieces + count[cta]++] = tp;
    };
    for (const Tile& tile : tiles) {
      const int first = tile.start / share;
      const int last = (tile.start + tile.blocks - 1) / share;
      const int pieces = last - first + 1;
      for (int cta = first; cta <= last; ++cta) {
        const int begin = cta * share > tile.start ? cta * share : tile.start;
        const int end = MinInt((cta + 1) * share, tile.start + tile.blocks);
        place(cta, TailPiece{tile.unit, tile.sub, begin - tile.start, end - tile.start,
                             cta - first, pieces, pieces > 1 ? plan.split_tiles : 0,
                             pieces > 1 ? plan.slots : 0});
      }
      if (pieces > 1) {
        ++plan.split_tiles;
        plan.slots += pieces;
      }
    }
    int cta = 0;
    for (const Tile& tile : empty) {
      while (cta < grid && count[cta] == kMaxCtaPieces) ++cta;
      place(cta, TailPiece{tile.unit, tile.sub, 0, 0, 0, 1, 0, 0});
    }
    if (fits) return plan;
  }
  p->whole_units = units;
  return TailPlan{};
}

// The tail launch's table, from the plan: kMaxCtaPieces per CTA.
int FillTailTable(const TailPlan& plan, WalkArgs<Walk::kTail>* ta) {
  // TailPiece packs tile and slot in 12 bits each (slot in the sign bits:
  // below 2048). kMaxCtas CTAs of kMaxCtaPieces pieces stay far below both.
  if (plan.slots >= 2048 || plan.split_tiles >= 2048) return kErrShape;
  for (size_t i = 0; i < plan.pieces.size(); ++i) ta->table[i] = plan.pieces[i].Pack();
  return kOk;
}

// Causal units first .. end - 1 in order, as round-robin deals them: fn(unit,
// cta, m_hi, m_lo) with the CTA that takes the unit (unit % grid) and its
// query tiles M-1-j and j (m_hi == m_lo for the middle tile alone), as
// UnitTile numbers them, without a division per unit (host time, s13).
template <class Fn>
void ForCausalUnits(const FwdParams& p, int grid, int first, int end, Fn&& fn) {
  const int half = (p.num_m_tiles + 1) / 2;
  for (int unit = first, j = first % half, c = first % grid; unit < end; ++unit) {
    fn(unit, c, p.num_m_tiles - 1 - j, j);
    if (++j == half) j = 0;
    if (++c == grid) c = 0;
  }
}

// A causal tile's estimated time in half key blocks (PlanPool's and
// TailMakespan's unit): its key blocks and its fixed cost.
template <int kBlockN, int kRows>
int TileCost(int m_tile, const FwdParams& p) {
  return 2 * KvBlocks<kBlockN, kRows>(m_tile * kRows, p) + kTileCostHalfBlocks;
}

// The units the pool's launches run round-robin: all but the last full
// round and the leftover, or none where there are fewer than two rounds.
inline int PoolWholeUnits(int units, int grid) {
  return units < 2 * grid ? 0 : units - grid - units % grid;
}

// With the causal mask, the pool (see "The last wave"): units
// p.whole_units and on, their tiles longest first, each to the CTA whose
// tiles end first: place(entry, cta) for each, entries numbered from unit
// `base` as FillList numbers them. Returns when the last CTA is done, in
// half key blocks (TileCost).
template <int kBlockN, int kRows, class Place>
int64_t SchedulePool(int grid, const FwdParams& p, int base, Place&& place) {
  const int m_tiles = p.num_m_tiles;
  // A tile's estimated time grows with its query tile, so longest first is
  // highest query tile first.
  std::vector<int> cost(m_tiles);
  for (int m = 0; m < m_tiles; ++m) cost[m] = TileCost<kBlockN, kRows>(m, p);
  // Each CTA starts the pool when its whole units are done (a unit's two
  // tiles cost the same as any other's, but with an odd number of tiles per
  // head the middle one is a unit alone). Unit u is query tiles M-1-j and j,
  // j = u % half, on CTA u % grid.
  std::vector<int64_t> done(grid, 0);
  ForCausalUnits(p, grid, 0, p.whole_units, [&](int, int c, int m_hi, int m_lo) {
    done[c] += cost[m_hi] + (m_hi != m_lo ? cost[m_lo] : 0);
  });
  // The pool's tiles by query tile, highest first, each in unit order.
  std::vector<std::vector<int>> by_m(m_tiles);  // entries
  ForCausalUnits(p, grid, p.whole_units, NumUnits(p), [&](int unit, int, int m_hi, int m_lo) {
    by_m[m_hi].push_back(2 * (unit - base));
    if (m_hi != m_lo) by_m[m_lo].push_back(2 * (unit - base) + 1);
  });
  // Longest first, each to the CTA free first; a tie goes to the lowest
  // CTA. A CTA holding kMaxCtaPoolTiles takes no more: the pool has under
  // four tiles per CTA, so such a CTA holds the shortest and is far from last.
  using FreeAt = std::pair<int64_t, int>;  // (time, CTA)
  std::priority_queue<FreeAt, std::vector<FreeAt>, std::greater<FreeAt>> free_at;
  for (int c = 0; c < grid; ++c) free_at.push({done[c], c});
  std::vector<int> taken(grid, 0);
  for (int m = m_tiles - 1; m >= 0; --m) {
    for (const int entry : by_m[m]) {
      FreeAt f = free_at.top();
      free_at.pop();
      while (taken[f.second] == kMaxCtaPoolTiles) {
        f = free_at.top();
        free_at.pop();
      }
      const int c = f.second;
      ++taken[c];
      place(entry, c);
      free_at.push({f.first + cost[m], c});
    }
  }
  int64_t last = 0;
  for (; !free_at.empty(); free_at.pop()) last = std::max(last, free_at.top().first);
  return last;
}

// The pool's tiles appended to the last list launch's lists (count[c]
// entries each so far).
template <int kBlockN, int kRows>
void PlanPool(int grid, const FwdParams& p, WalkArgs<Walk::kList>* list, std::vector<int>* count) {
  SchedulePool<kBlockN, kRows>(grid, p, list->base, [&](int entry, int c) {
    list->tiles[c * kMaxCtaTiles + (*count)[c]++] = static_cast<uint16_t>(entry);
  });
}

// The estimated time of a causal input without the pool: round-robin units
// 0 .. p.whole_units - 1, then the tail launch's pieces (PlanTail's plan
// and whole_units), in SchedulePool's unit, a piece costing a tile's fixed
// work as a tile does.
template <int kBlockN, int kRows>
int64_t TailMakespan(int grid, const FwdParams& p, const TailPlan& plan) {
  std::vector<int64_t> done(grid, 0);
  ForCausalUnits(p, grid, 0, p.whole_units, [&](int, int c, int m_hi, int m_lo) {
    done[c] += TileCost<kBlockN, kRows>(m_hi, p) + (m_hi != m_lo ? TileCost<kBlockN, kRows>(m_lo, p) : 0);
  });
  for (size_t i = 0; i < plan.pieces.size(); ++i) {
    const TailPiece& tp = plan.pieces[i];
    if (tp.it_end > tp.it_begin) {
      done[i / kMaxCtaPieces] += 2 * (tp.it_end - tp.it_begin) + kTileCostHalfBlocks;
    }
  }
  return *std::max_element(done.begin(), done.end());
}

// One list launch's lists: rounds r0 .. r1 - 1 of units round-robin (unit u
// on CTA u % grid), then the pool where `pool`. Returns how many CTAs have
// work: the lowest ones, as round-robin fills them in order and the pool
// gives ties to the lowest. Entries count from unit r0 * grid, so none
// reaches 2 * (20 + 2) * kMaxCtas, far below the end mark.
template <int kBlockN, int kRows>
int FillList(int grid, const FwdParams& p, int r0, int r1, bool pool,
             WalkArgs<Walk::kList>* list) {
  std::fill(std::begin(list->tiles), std::end(list->tiles), uint16_t{0xffff});
  list->base = r0 * grid;
  std::vector<int> count(grid, 0);
  const int end = MinInt(r1 * grid, p.whole_units);
  ForCausalUnits(p, grid, r0 * grid, end, [&](int unit, int c, int m_hi, int m_lo) {
    const int entry = 2 * (unit - list->base);
    list->tiles[c * kMaxCtaTiles + count[c]++] = static_cast<uint16_t>(entry);
    if (m_hi != m_lo) list->tiles[c * kMaxCtaTiles + count[c]++] = static_cast<uint16_t>(entry + 1);
  });
  if (pool) PlanPool<kBlockN, kRows>(grid, p, list, &count);
  int ctas = grid;
  while (ctas > 0 && count[ctas - 1] == 0) --ctas;
  return ctas;
}

constexpr int kMaxDevices = 64;  // LaunchKernel's mask of devices

// One launch of the kernel for (D, kBlockN, kConsumers) on the current
// device, `device`: round-robin, a list launch, or the tail, as a
// programmatic dependent of the launch before it (`dependent`).
template <int D, int kBlockN, bool kBf16, int kConsumers, Walk kWalk>
int LaunchKernel(int device, int grid, const CUtensorMap (&tmaps)[4], const FwdParams& params,
                 const WalkArgs<kWalk>& wa, bool dependent, cudaStream_t stream) {
  using Cfg = TileConfig<D, kBlockN, 64 * kConsumers>;
  auto* kernel = AttentionFwdKernel<D, kBlockN, kBf16, kConsumers, kWalk>;
  // The shared memory size is an attribute of the kernel in each device's
  // context: set once per instantiation and device (bit `device`).
  static std::atomic<uint64_t> attribute_set{0};
  if (device < 0 || device >= kMaxDevices) return kErrLaunch;
  const uint64_t bit = uint64_t{1} << device;
  if ((attribute_set.load(std::memory_order_acquire) & bit) == 0) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             Cfg::kSmemBytes) != cudaSuccess) {
      return kErrLaunch;
    }
    attribute_set.fetch_or(bit, std::memory_order_release);
  }
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(128 * (kConsumers + 1));
  config.dynamicSmemBytes = Cfg::kSmemBytes;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, tmaps[0], tmaps[1], tmaps[2], tmaps[3], params, wa) ==
                 cudaSuccess
             ? kOk
             : kErrLaunch;
}

// A plan of the last wave, kept per thread and kernel for the next call of
// the same shape: planning is host time, which a caller that waits for each
// call sees whole (kseek's runner does: the pool's plan took 25 us at d = 128,
// s13 run 6), and a model calls the same shape again and again. A plan
// depends on the grid and the input's shape only. make(&p) plans for p and
// sets p.whole_units; on a kept plan, p->whole_units is set from it.
template <class Plan, class Make>
const Plan& KeptPlan(int grid, FwdParams* p, Make&& make) {
  using Key = std::array<int, 6>;
  struct Kept {
    Key key = {};  // all zero: no plan yet (grid is never 0)
    int whole_units = 0;
    Plan plan;
  };
  thread_local Kept kept;
  const Key key = {grid, p->batch, p->heads, p->s_q, p->s_k, p->causal};
  if (kept.key != key) {
    kept.key = {};
    kept.plan = make(p);
    kept.whole_units = p->whole_units;
    kept.key = key;
  }
  p->whole_units = kept.whole_units;
  return kept.plan;
}

// The list launches of a causal input with the pool: units 0 ..
// whole_units - 1 (whole rounds) round-robin, kRounds rounds per launch,
// the last launch ending with the pool (the last full round and the
// leftover). Sets p->whole_units and calls launch(ctas, lists) for each
// launch in order, stopping at the first that fails. The plan is kept
// (KeptPlan).
template <int kBlockN, int kRows, class Launch>
int PoolLaunches(int grid, FwdParams* p, Launch&& launch) {
  using Launches = std::vector<std::pair<int, WalkArgs<Walk::kList>>>;  // (CTAs, lists)
  const Launches& launches = KeptPlan<Launches>(grid, p, [grid](FwdParams* q) {
    constexpr int kRounds = (kMaxCtaTiles - kMaxCtaPoolTiles) / 2;  // a causal unit has 2 tiles
    q->whole_units = PoolWholeUnits(NumUnits(*q), grid);
    const int rounds = q->whole_units / grid;
    Launches planned;
    WalkArgs<Walk::kList> list;
    for (int r0 = 0;; r0 += kRounds) {
      const int r1 = MinInt(rounds, r0 + kRounds);
      const int ctas = FillList<kBlockN, kRows>(grid, *q, r0, r1, r1 == rounds, &list);
      if (ctas > 0) planned.emplace_back(ctas, list);
      if (r1 == rounds) return planned;
    }
  });
  for (const auto& [ctas, list] : launches) {
    if (const int rc = launch(ctas, list); rc != kOk) return rc;
  }
  return kOk;
}

// PlanTail's plan, kept (KeptPlan). Sets p->whole_units.
template <int kBlockN, int kRows, int kMinSplitBlocks>
const TailPlan& KeptTailPlan(int grid, FwdParams* p) {
  return KeptPlan<TailPlan>(
      grid, p, [grid](FwdParams* q) { return PlanTail<kBlockN, kRows, kMinSplitBlocks>(grid, q); });
}

// A causal input's two estimated times, in half key blocks (TileCost): the
// tail path's (round-robin, then the tail launch's pieces: TailMakespan) and
// the pool's (SchedulePool).
struct PathTimes {
  int64_t tail;
  int64_t pool;
};

template <int kBlockN, int kRows, int kMinSplitBlocks>
PathTimes EstimatePaths(int grid, const FwdParams& p) {
  FwdParams tail = p;
  const TailPlan plan = PlanTail<kBlockN, kRows, kMinSplitBlocks>(grid, &tail);
  FwdParams pool = p;
  pool.whole_units = PoolWholeUnits(NumUnits(p), grid);
  return {TailMakespan<kBlockN, kRows>(grid, tail, plan),
          SchedulePool<kBlockN, kRows>(grid, pool, 0, [](int, int) {})};
}

// Whether a causal input takes the pool: past MinPoolKeys (long), unless the
// tail path is estimated at least kPoolMarginPct percent shorter; short of
// it, only where the pool is estimated kShortPoolMarginPct percent shorter
// (see "The last wave"). Kept (KeptPlan).
template <int kBlockN, int kRows, int kMinSplitBlocks>
bool PoolWins(int grid, FwdParams p, bool long_input) {
  return KeptPlan<bool>(grid, &p, [grid, long_input](FwdParams* q) {
    const PathTimes t = EstimatePaths<kBlockN, kRows, kMinSplitBlocks>(grid, *q);
    return long_input ? 100 * t.tail > (100 - kPoolMarginPct) * t.pool
                      : 100 * t.pool <= (100 - kShortPoolMarginPct) * t.tail;
  });
}

// Whether LaunchFast runs an input on the pool: causal, its longest tile of
// at least kMinShortPoolKeys keys, and PoolWins, long where that tile
// reaches MinPoolKeys.
template <int D, int kBlockN, int kConsumers>
bool TakesPool(int grid, const FwdParams& p) {
  constexpr int kRows = 64 * kConsumers;
  const int longest = KvBlocks<kBlockN, kRows>((p.num_m_tiles - 1) * kRows, p) * kBlockN;
  return p.causal && longest >= kMinShortPoolKeys &&
         PoolWins<kBlockN, kRows, MinSplitBlocks(D, kConsumers)>(grid, p,
                                                                 longest >= MinPoolKeys(D));
}

// The TMA maps of Q, K, V and O (boxes of kQRows, kBlockN, kBlockN and 64
// rows), kept per thread and kernel for the next call with the same tensors
// (pointers, shapes, strides, byte for byte), as a benchmark's calls and a
// model's steps on reused buffers are. *maps is set, or an error returned.
template <bool kBf16, int kQRows, int kBlockN>
int KeptMaps(const KseekArgs* args, const CUtensorMap (**maps)[4]) {
  struct Kept {
    KseekTensor tensors[4];
    CUtensorMap maps[4];
    bool valid = false;
  };
  thread_local Kept kept;
  if (!kept.valid || memcmp(kept.tensors, args->tensors, sizeof(kept.tensors)) != 0) {
    kept.valid = false;
    EncodeTiledFn encode = GetEncodeTiled();
    if (encode == nullptr) return kErrDriver;
    if (!EncodeBhsd(encode, &kept.maps[0], args->tensors[0], kBf16, kQRows) ||
        !EncodeBhsd(encode, &kept.maps[1], args->tensors[1], kBf16, kBlockN) ||
        !EncodeBhsd(encode, &kept.maps[2], args->tensors[2], kBf16, kBlockN) ||
        !EncodeBhsd(encode, &kept.maps[3], args->tensors[3], kBf16, 64)) {
      return kErrLayout;
    }
    memcpy(kept.tensors, args->tensors, sizeof(kept.tensors));
    kept.valid = true;
  }
  *maps = &kept.maps;
  return kOk;
}

template <int D, int kBlockN, bool kBf16, int kConsumers = 2>
int LaunchFast(const KseekArgs* args, FwdParams params, cudaStream_t stream) {
  constexpr int kRows = 64 * kConsumers;
  params.num_m_tiles = static_cast<int>((params.s_q + kRows - 1) / kRows);
  SetDivisors(&params);
  const CUtensorMap(*kept_maps)[4] = nullptr;
  constexpr int kQRows = kRows / TileConfig<D, kBlockN, kRows>::kQParts;
  if (const int rc = KeptMaps<kBf16, kQRows, kBlockN>(args, &kept_maps); rc != kOk) return rc;
  const CUtensorMap(&tmaps)[4] = *kept_maps;
  // Persistent grid: one CTA per multiprocessor, each walking units
  // blockIdx.x, blockIdx.x + gridDim.x, ... (then, in a tail launch, its
  // pieces of the last wave), or, on long causal inputs, its lists.
  int device = 0;
  int sm_count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sm_count < 1) {
    return kErrLaunch;
  }
  const int grid = MinInt(sm_count, kMaxCtas);
  if (TakesPool<D, kBlockN, kConsumers>(grid, params)) {
    bool dependent = false;  // each launch after the first depends on the one before
    return PoolLaunches<kBlockN, kRows>(
        grid, &params, [&](int ctas, const WalkArgs<Walk::kList>& list) {
          const int rc = LaunchKernel<D, kBlockN, kBf16, kConsumers, Walk::kList>(
              device, ctas, tmaps, params, list, dependent, stream);
          dependent = true;
          return rc;
        });
  }
  const TailPlan& plan = KeptTailPlan<kBlockN, kRows, MinSplitBlocks(D, kConsumers)>(grid, &params);
  const bool first = params.whole_units > 0;
  auto launch_first = [&] {
    return first ? LaunchKernel<D, kBlockN, kBf16, kConsumers, Walk::kUnits>(
                       device, MinInt(grid, params.whole_units), tmaps, params,
                       WalkArgs<Walk::kUnits>{}, false, stream)
                 : kOk;
  };
  if constexpr (MinSplitBlocks(D, kConsumers) > 0) {
    if (!plan.pieces.empty()) {
      WalkArgs<Walk::kTail> ta;
      if (const int rc = FillTailTable(plan, &ta); rc != kOk) return rc;
      // The split tiles' completion counters and partial results: allocated
      // on the stream for this call from the device's memory pool, the
      // counters zeroed ahead of both launches (nothing stands between
      // them), and given back behind the tail, so nothing outlives the call
      // and nothing waits for the device.
      const size_t counter_bytes =
          (static_cast<size_t>(plan.split_tiles) * kConsumers * sizeof(int) + 255) / 256 * 256;
      const size_t bytes = counter_bytes + static_cast<size_t>(plan.slots) * kConsumers * 128 *
                                               (D / 2 + 4) * sizeof(float);
      void* workspace = nullptr;
      if (cudaMallocAsync(&workspace, bytes, stream) != cudaSuccess) return kErrLaunch;
      ta.counters = static_cast<int*>(workspace);
      ta.partials = reinterpret_cast<float*>(static_cast<char*>(workspace) + counter_bytes);
      int rc =
          cudaMemsetAsync(workspace, 0, counter_bytes, stream) == cudaSuccess ? kOk : kErrLaunch;
      if (rc == kOk) rc = launch_first();
      if (rc == kOk) {
        rc = LaunchKernel<D, kBlockN, kBf16, kConsumers, Walk::kTail>(device, grid, tmaps, params,
                                                                      ta, first, stream);
      }
      const bool freed = cudaFreeAsync(workspace, stream) == cudaSuccess;
      return rc != kOk ? rc : (freed ? kOk : kErrLaunch);
    }
  }
  return launch_first();
}

bool FindScalar(const KseekArgs* args, const char* name, double* value) {
  for (int i = 0; i < args->num_scalars && i < KSEEK_MAX_SCALARS; ++i) {
    if (strncmp(args->scalars[i].name, name, sizeof(args->scalars[i].name)) == 0) {
      *value = args->scalars[i].value;
      return true;
    }
  }
  return false;
}

bool Aligned16(const void* ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15u) == 0; }

}  // namespace

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  if (args == nullptr || args->abi_version != KSEEK_ABI_VERSION || args->num_tensors < 5) {
    return kErrAbi;
  }
  const KseekTensor& q = args->tensors[0];
  const KseekTensor& k = args->tensors[1];
  const KseekTensor& v = args->tensors[2];
  const KseekTensor& o = args->tensors[3];
  const KseekTensor& lse = args->tensors[4];
  if (q.rank != 4 || k.rank != 4 || v.rank != 4 || o.rank != 4 || lse.rank != 3) return kErrShape;
  const int64_t batch = q.shape[0], s_q = q.shape[1], heads = q.shape[2], d = q.shape[3];
  const int64_t s_k = k.shape[1], heads_kv = k.shape[2];
  if (batch < 1 || s_q < 1 || s_k < 1 || heads < 1 || heads_kv < 1 || heads % heads_kv != 0 ||
      k.shape[0] != batch || k.shape[3] != d || v.shape[0] != batch || v.shape[1] != s_k ||
      v.shape[2] != heads_kv || v.shape[3] != d || o.shape[0] != batch || o.shape[1] != s_q ||
      o.shape[2] != heads || o.shape[3] != d || lse.shape[0] != batch || lse.shape[1] != heads ||
      lse.shape[2] != s_q) {
    return kErrShape;
  }
  if (d < 1 || d > 256 || s_q > INT32_MAX / 2 || s_k > INT32_MAX / 2 || heads > 65535 ||
      batch > 65535) {
    return kErrShape;
  }
  if ((q.dtype != KSEEK_BF16 && q.dtype != KSEEK_F16) || k.dtype != q.dtype ||
      v.dtype != q.dtype || o.dtype != q.dtype || lse.dtype != KSEEK_F32) {
    return kErrDtype;
  }
  const bool bf16 = q.dtype == KSEEK_BF16;
  double scale = 1.0 / sqrt(static_cast<double>(d));
  FindScalar(args, "scale", &scale);
  double causal = 0.0;
  FindScalar(args, "causal", &causal);

  // TMA reads Q, K, V and writes O: 16-byte aligned rows, unit column stride.
  bool fast = d == 64 || d == 96 || d == 128 || d == 192 || d == 256;
  for (const KseekTensor* t : {&q, &k, &v, &o}) {
    fast = fast && t->stride[3] == 1 && t->stride[2] % 8 == 0 && t->stride[1] % 8 == 0 &&
           t->stride[0] % 8 == 0 && Aligned16(t->data);
  }

  if (fast) {
    FwdParams params;
    params.o = o.data;
    params.lse = static_cast<float*>(lse.data);
    params.o_stride_b = o.stride[0];
    params.o_stride_s = o.stride[1];
    params.o_stride_h = o.stride[2];
    params.lse_stride_b = lse.stride[0];
    params.lse_stride_h = lse.stride[1];
    params.lse_stride_s = lse.stride[2];
    params.batch = static_cast<int>(batch);
    params.heads = static_cast<int>(heads);
    params.heads_kv = static_cast<int>(heads_kv);
    params.s_q = static_cast<int>(s_q);
    params.s_k = static_cast<int>(s_k);
    params.d = static_cast<int>(d);
    params.causal = causal != 0.0 ? 1 : 0;
    params.num_m_tiles = static_cast<int>((s_q + kBlockM - 1) / kBlockM);
    params.scale_log2 = static_cast<float>(scale) * kLog2e;
    if (static_cast<int64_t>(params.num_m_tiles) * batch * heads > INT32_MAX) return kErrShape;
    // Tile shapes measured on the H200 (docs/kernels/attention_fwd_sm90.md).
    // d = 128 takes 128-key blocks everywhere: with them a second Q buffer and
    // an O staging buffer fit, which beat 176-key blocks once O left through
    // TMA (third session).
    if (d <= 64) {
      // Three consumer warpgroups (192-row tiles) win except causal at short
      // lengths (up to 1024), where the taller tiles waste rows and unbalance
      // the pairs; from 2048 keys the pool balances them (MinPoolKeys).
      if (params.causal && s_q <= 1024 && s_k <= 1024) {
        return bf16 ? LaunchFast<64, 128, true, 2>(args, params, stream)
                    : LaunchFast<64, 128, false, 2>(args, params, stream);
      }
      return bf16 ? LaunchFast<64, 128, true, 3>(args, params, stream)
                  : LaunchFast<64, 128, false, 3>(args, params, stream);
    }
    if (d <= 128) {
      return bf16 ? LaunchFast<128, 128, true>(args, params, stream)
                  : LaunchFast<128, 128, false>(args, params, stream);
    }
    // d = 256 takes 64-key blocks: on causal inputs less of the diagonal's
    // waste (lab, s24, H200, two passes: causal s = 2048 2% faster than
    // 80-key blocks, longer ones 0.2-0.7%), and on full inputs too (lab f64,
    // H100, two passes: +0.5-0.9% per region over 80-key blocks; s = 512, 2048
    // and 4096 +0.7-2.1%, the others even).
    return bf16 ? LaunchFast<256, 64, true>(args, params, stream)
                : LaunchFast<256, 64, false>(args, params, stream);
  }

  SimpleParams sp;
  sp.q = q.data;
  sp.k = k.data;
  sp.v = v.data;
  sp.o = o.data;
  sp.lse = static_cast<float*>(lse.data);
  for (int i = 0; i < 4; ++i) {
    sp.q_stride[i] = q.stride[i];
    sp.k_stride[i] = k.stride[i];
    sp.v_stride[i] = v.stride[i];
    sp.o_stride[i] = o.stride[i];
  }
  for (int i = 0; i < 3; ++i) sp.lse_stride[i] = lse.stride[i];
  sp.batch = static_cast<int>(batch);
  sp.heads = static_cast<int>(heads);
  sp.heads_kv = static_cast<int>(heads_kv);
  sp.s_q = static_cast<int>(s_q);
  sp.s_k = static_cast<int>(s_k);
  sp.d = static_cast<int>(d);
  sp.causal = causal != 0.0 ? 1 : 0;
  sp.scale = static_cast<float>(scale);
  const int64_t rows = batch * heads * s_q;
  const int64_t blocks = (rows * 32 + 255) / 256;
  if (blocks > INT32_MAX) return kErrShape;
  if (bf16) {
    AttentionFwdSimpleKernel<__nv_bfloat16><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(sp);
  } else {
    AttentionFwdSimpleKernel<__half><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(sp);
  }
  return cudaGetLastError() == cudaSuccess ? kOk : kErrLaunch;
}
