// The host-side plans of kernels/attention_fwd/sm90.cu, checked on the CPU:
//  - the pool's list launches (PoolLaunches): every tile of a causal input on
//    exactly one CTA's list, once, on a CTA the launch has; a second call (the
//    kept plan) launches the same lists;
//  - the tail launch (PlanTail): every key block of every leftover tile in
//    exactly one piece, every leftover tile without keys (causal, s_q > s_k)
//    in exactly one empty piece, kMaxCtaPieces slots per CTA; the kept plan
//    (KeptTailPlan) the same as a fresh one;
//  - the choice between them (TakesPool) on the perf grid's causal shapes and
//    on five of few (batch, head) pairs;
//  - the walk's divisions (FastDiv) against the / operator, and UnitTile
//    against the coordinates by plain division and remainder.
// For the perf grid's shapes (printing the pool's launches and the planner's
// estimate of balance: mean over most of the CTAs' estimated time) and for
// random shapes and grid sizes. Built and run by nvcc at test time (see
// tests/CMakeLists.txt); exits non-zero on the first failure.
#include <cstdio>
#include <random>
#include <tuple>

#include "attention_fwd/sm90.cu"

namespace {

FwdParams Shape(int kRows, int b, int h, int s_q, int s_k, bool causal) {
  FwdParams p = {};
  p.batch = b;
  p.heads = h;
  p.heads_kv = h;
  p.s_q = s_q;
  p.s_k = s_k;
  p.causal = causal;
  p.num_m_tiles = (s_q + kRows - 1) / kRows;
  SetDivisors(&p);
  return p;
}

bool Fail(const char* what, const FwdParams& p, int grid) {
  std::printf("FAIL: %s (b=%d h=%d s_q=%d s_k=%d causal=%d grid=%d)\n", what, p.batch, p.heads,
              p.s_q, p.s_k, p.causal, grid);
  return false;
}

template <int kBlockN, int kRows>
bool CheckPool(int grid, int b, int h, int s_q, int s_k, bool verbose) {
  FwdParams p = Shape(kRows, b, h, s_q, s_k, true);
  const int units = NumUnits(p);
  std::vector<int> seen(static_cast<size_t>(units) * 2, 0);
  std::vector<int64_t> load(grid, 0);
  int launches = 0;
  int longest = 0;
  bool ok = true;
  const int rc =
      PoolLaunches<kBlockN, kRows>(grid, &p, [&](int ctas, const WalkArgs<Walk::kList>& list) {
        ++launches;
        if (ctas < 1 || ctas > grid) ok = Fail("CTA count out of range", p, grid);
        for (int c = 0; c < grid && ok; ++c) {
          int n = 0;
          for (; n < kMaxCtaTiles && list.tiles[c * kMaxCtaTiles + n] != 0xffff; ++n) {
            if (c >= ctas) {
              ok = Fail("a tile on a CTA the launch does not have", p, grid);
              return kOk;
            }
            const int e = list.tiles[c * kMaxCtaTiles + n];
            const int unit = list.base + (e >> 1);
            const int sub = e & 1;
            if (unit >= units || sub >= TilesInUnit(unit, p)) {
              ok = Fail("an entry past the input's tiles", p, grid);
              return kOk;
            }
            ++seen[static_cast<size_t>(unit) * 2 + sub];
            load[c] += 2 * KvBlocks<kBlockN, kRows>(UnitTile(unit, sub, p).m_tile * kRows, p) +
                       kTileCostHalfBlocks;
          }
          longest = n > longest ? n : longest;
        }
        return kOk;
      });
  if (!ok) return false;
  if (rc != kOk) return Fail("PoolLaunches failed", p, grid);
  int tiles = 0;
  for (int unit = 0; unit < units; ++unit) {
    for (int sub = 0; sub < 2; ++sub) {
      const int want = sub < TilesInUnit(unit, p) ? 1 : 0;
      tiles += want;
      if (seen[static_cast<size_t>(unit) * 2 + sub] != want) {
        return Fail("a tile on no list, or on several", p, grid);
      }
    }
  }
  // The same shape again takes the kept plan: the same launches, byte for
  // byte, as planning afresh (another shape in between evicts the plan).
  auto record = [](std::vector<std::vector<uint8_t>>* into) {
    return [into](int ctas, const WalkArgs<Walk::kList>& list) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(&list);
      into->emplace_back(bytes, bytes + sizeof(list));
      into->back().push_back(static_cast<uint8_t>(ctas));
      return kOk;
    };
  };
  FwdParams other = Shape(kRows, b + 1, h, s_q, s_k, true);
  PoolLaunches<kBlockN, kRows>(grid, &other, [](int, const WalkArgs<Walk::kList>&) { return kOk; });
  std::vector<std::vector<uint8_t>> fresh;
  std::vector<std::vector<uint8_t>> kept;
  FwdParams again = Shape(kRows, b, h, s_q, s_k, true);
  PoolLaunches<kBlockN, kRows>(grid, &again, record(&fresh));
  const int whole = again.whole_units;
  again = Shape(kRows, b, h, s_q, s_k, true);
  PoolLaunches<kBlockN, kRows>(grid, &again, record(&kept));
  if (again.whole_units != whole || whole != p.whole_units || fresh != kept ||
      static_cast<int>(fresh.size()) != launches) {
    return Fail("the kept plan differs from a fresh one", p, grid);
  }
  if (verbose) {
    int64_t most = 0;
    int64_t sum = 0;
    for (int64_t l : load) {
      most = l > most ? l : most;
      sum += l;
    }
    std::printf(
        "pool  rows %3d  b=%2d h=%2d s=%5d: %5d tiles, %d launch(es), longest list %2d, "
        "balance %.3f\n",
        kRows, b, h, s_q, tiles, launches, longest, static_cast<double>(sum) / grid / most);
  }
  return true;
}

template <int kBlockN, int kRows, int kMinSplitBlocks>
bool CheckTail(int grid, int b, int h, int s_q, int s_k, bool causal) {
  FwdParams p = Shape(kRows, b, h, s_q, s_k, causal);
  const TailPlan plan = PlanTail<kBlockN, kRows, kMinSplitBlocks>(grid, &p);
  const int units = NumUnits(p);
  // Key blocks covered, per leftover tile.
  std::vector<std::vector<int>> covered(static_cast<size_t>(units - p.whole_units) * 2);
  for (int unit = p.whole_units; unit < units; ++unit) {
    for (int sub = 0; sub < TilesInUnit(unit, p); ++sub) {
      const int blocks = KvBlocks<kBlockN, kRows>(UnitTile(unit, sub, p).m_tile * kRows, p);
      covered[static_cast<size_t>(unit - p.whole_units) * 2 + sub].assign(blocks, 0);
    }
  }
  if (!plan.pieces.empty() && plan.pieces.size() != static_cast<size_t>(grid) * kMaxCtaPieces) {
    return Fail("a tail table of the wrong size", p, grid);
  }
  std::vector<int> empty_seen(covered.size(), 0);
  for (size_t i = 0; i < plan.pieces.size(); ++i) {
    const TailPiece& t = plan.pieces[i];
    if (t.pieces == 0) continue;
    if (t.unit < p.whole_units || t.unit >= units)
      return Fail("a piece of no leftover unit", p, grid);
    auto& blocks = covered[static_cast<size_t>(t.unit - p.whole_units) * 2 + t.sub];
    if (t.it_begin == t.it_end)
      ++empty_seen[static_cast<size_t>(t.unit - p.whole_units) * 2 + t.sub];
    if (t.it_begin < 0 || t.it_end > static_cast<int>(blocks.size()) || t.it_begin > t.it_end) {
      return Fail("a piece past its tile's key blocks", p, grid);
    }
    for (int k = t.it_begin; k < t.it_end; ++k) ++blocks[k];
  }
  for (int unit = p.whole_units; unit < units; ++unit) {
    for (int sub = 0; sub < TilesInUnit(unit, p); ++sub) {
      const size_t i = static_cast<size_t>(unit - p.whole_units) * 2 + sub;
      for (int n : covered[i]) {
        if (n != 1) return Fail("a key block in no piece, or in several", p, grid);
      }
      if (covered[i].empty() && empty_seen[i] != 1) {
        return Fail("a tile without keys in no piece, or in several", p, grid);
      }
    }
  }
  if (!plan.pieces.empty()) {
    WalkArgs<Walk::kTail> ta;
    if (FillTailTable(plan, &ta) != kOk) return Fail("FillTailTable refused the plan", p, grid);
  }
  // The kept plan (KeptTailPlan), asked twice after another shape: the same
  // pieces and whole units as planning afresh.
  FwdParams other = Shape(kRows, b + 1, h, s_q, s_k, causal);
  KeptTailPlan<kBlockN, kRows, kMinSplitBlocks>(grid, &other);
  for (int call = 0; call < 2; ++call) {
    FwdParams again = Shape(kRows, b, h, s_q, s_k, causal);
    const TailPlan& kept = KeptTailPlan<kBlockN, kRows, kMinSplitBlocks>(grid, &again);
    bool same = again.whole_units == p.whole_units && kept.pieces.size() == plan.pieces.size() &&
                kept.split_tiles == plan.split_tiles && kept.slots == plan.slots;
    for (size_t i = 0; same && i < plan.pieces.size(); ++i) {
      const int4 a = kept.pieces[i].Pack();
      const int4 c = plan.pieces[i].Pack();
      same = a.x == c.x && a.y == c.y && a.z == c.z && a.w == c.w;
    }
    if (!same) return Fail("the kept tail plan differs from a fresh one", p, grid);
  }
  return true;
}

}  // namespace

// FastDiv::Div against n / d: every n below 2^16 for d up to 4096, the
// largest n, and random pairs over the whole range.
bool CheckFastDiv() {
  std::mt19937 rng(3);
  auto same = [](int n, int d, const FastDiv& f) {
    if (f.Div(n) == n / d) return true;
    std::printf("FAIL: FastDiv %d / %d gives %d\n", n, d, f.Div(n));
    return false;
  };
  for (int d = 1; d <= 4096; ++d) {
    const FastDiv f = FastDiv::By(d);
    for (int n = 0; n < (1 << 16); ++n) {
      if (!same(n, d, f)) return false;
    }
    if (!same(INT32_MAX, d, f)) return false;
  }
  for (int i = 0; i < 1000000; ++i) {
    const int d = 1 + static_cast<int>(rng() % INT32_MAX);
    const int n = static_cast<int>(rng() % (static_cast<uint32_t>(INT32_MAX) + 1));
    if (!same(n, d, FastDiv::By(d)) || !same(d - 1, d, FastDiv::By(d)) ||
        !same(d, d, FastDiv::By(d))) {
      return false;
    }
  }
  return true;
}

// UnitTile's coordinates against the same walk by / and %.
bool CheckUnitTiles(int b, int h, int s_q, bool causal) {
  const FwdParams p = Shape(128, b, h, s_q, s_q, causal);
  const int per_bh = causal ? (p.num_m_tiles + 1) / 2 : p.num_m_tiles;
  for (int unit = 0; unit < NumUnits(p); ++unit) {
    const int j = unit % per_bh, bh = unit / per_bh;
    const int tiles = causal && p.num_m_tiles - 1 - j != j ? 2 : 1;
    if (TilesInUnit(unit, p) != tiles) return Fail("TilesInUnit", p, 0);
    for (int sub = 0; sub < tiles; ++sub) {
      const TileCoord c = UnitTile(unit, sub, p);
      const int m = causal && sub == 0 ? p.num_m_tiles - 1 - j : j;
      if (c.m_tile != m || c.head != bh % h || c.batch != bh / h) {
        return Fail("UnitTile", p, 0);
      }
    }
  }
  return true;
}

int main() {
  bool ok = CheckFastDiv();
  std::mt19937 shapes(11);
  for (int i = 0; ok && i < 300; ++i) {
    ok = CheckUnitTiles(1 + static_cast<int>(shapes() % 9), 1 + static_cast<int>(shapes() % 40),
                        1 + static_cast<int>(shapes() % 5000), shapes() % 2);
  }
  // The perf grid's causal shapes, as LaunchFast sends them to the pool.
  for (int s : {4096, 8192, 16384}) {
    ok = ok && CheckPool<128, 128>(132, 16384 / s, 16, s, s, true);  // d = 128
    ok = ok && CheckPool<128, 192>(132, 16384 / s, 32, s, s, true);  // d = 64
    ok = ok && CheckPool<64, 128>(132, 16384 / s, 8, s, s, true);    // d = 256
  }
  ok = ok && CheckPool<128, 128>(132, 8, 16, 2048, 2048, true);
  // The pool's choice (TakesPool), as LaunchFast makes it: the perf grid's
  // causal inputs keep the pool from MinPoolKeys on at every d, and
  // round-robin short of it; d = 128 causal b = 1, s = 6144 h = 3 and
  // s = 7680 h = 2, whose longest tiles outlast a CTA's mean load, take
  // round-robin and the tail launch; few (batch, head) pairs short of
  // MinPoolKeys, whose round-robin leaves a last round on few CTAs, the pool.
  for (int s = 512; ok && s <= 16384; s *= 2) {
    const FwdParams d128 = Shape(128, 16384 / s, 16, s, s, true);
    const FwdParams d64 = Shape(s <= 1024 ? 128 : 192, 16384 / s, 32, s, s, true);
    const FwdParams d256 = Shape(128, 16384 / s, 8, s, s, true);
    const bool pool64 = s <= 1024 ? TakesPool<64, 128, 2>(132, d64) : TakesPool<64, 128, 3>(132, d64);
    if (TakesPool<128, 128, 2>(132, d128) != (s >= MinPoolKeys(128))) ok = Fail("d = 128's choice", d128, 132);
    if (pool64 != (s >= MinPoolKeys(64))) ok = Fail("d = 64's choice", d64, 132);
    if (TakesPool<256, 64, 2>(132, d256) != (s >= MinPoolKeys(256))) ok = Fail("d = 256's choice", d256, 132);
  }
  for (const auto& [s, h] : {std::pair{6144, 3}, std::pair{7680, 2}}) {
    const FwdParams few = Shape(128, 1, h, s, s, true);
    if (ok && TakesPool<128, 128, 2>(132, few)) {
      ok = Fail("the pool kept where the tail launch cuts the longest tiles", few, 132);
    }
  }
  for (const auto& [b, h, s] : {std::tuple{2, 7, 3072}, std::tuple{1, 36, 1024}}) {
    const FwdParams few = Shape(128, b, h, s, s, true);
    if (ok && !TakesPool<256, 64, 2>(132, few)) {
      ok = Fail("round-robin kept where its last round runs on few CTAs", few, 132);
    }
  }
  // Shorter than kMinShortPoolKeys: round-robin, however few the pairs.
  const FwdParams tiny = Shape(128, 2, 4, 300, 300, true);
  if (ok && TakesPool<128, 128, 2>(132, tiny)) ok = Fail("the pool taken under 1024 keys", tiny, 132);
  const FwdParams full = Shape(128, 2, 7, 3072, 3072, false);
  if (ok && TakesPool<256, 64, 2>(132, full)) ok = Fail("the pool taken without the mask", full, 132);
  // d = 256's tail threshold: s = 12800, h = 3 leaves 36 tiles of 200 key
  // blocks after two rounds, which are cut; s = 8192, h = 10 leaves 112 of
  // 128, which run whole.
  constexpr int kMin256 = MinSplitBlocks(256, 2);
  ok = ok && CheckTail<64, 128, kMin256>(132, 1, 3, 12800, 12800, false) &&
       CheckTail<64, 128, kMin256>(132, 1, 10, 8192, 8192, false);
  FwdParams cut = Shape(128, 1, 3, 12800, 12800, false);
  FwdParams whole = Shape(128, 1, 10, 8192, 8192, false);
  if (ok && PlanTail<64, 128, kMin256>(132, &cut).pieces.empty()) {
    ok = Fail("d = 256 left tiles of 200 key blocks whole", cut, 132);
  }
  if (ok && !PlanTail<64, 128, kMin256>(132, &whole).pieces.empty()) {
    ok = Fail("d = 256 cut tiles of 128 key blocks", whole, 132);
  }
  std::mt19937 rng(7);
  int pools = 0;
  int tails = 0;
  for (int i = 0; ok && i < 3000; ++i) {
    const int b = 1 + static_cast<int>(rng() % 48);
    const int h = 1 + static_cast<int>(rng() % 48);
    const int s_q = 1 + static_cast<int>(rng() % 20000);
    const int s_k = 1 + static_cast<int>(rng() % 20000);
    const int grid = 1 + static_cast<int>(rng() % kMaxCtas);
    switch (rng() % 3) {
      case 0:
        ok = CheckPool<128, 128>(grid, b, h, s_q, s_k, false);
        break;
      case 1:
        ok = CheckPool<128, 192>(grid, b, h, s_q, s_k, false);
        break;
      default:
        ok = CheckPool<64, 128>(grid, b, h, s_q, s_k, false);
        break;
    }
    ++pools;
    const bool causal = rng() % 2;
    switch (rng() % 3) {
      case 0:
        ok = ok && CheckTail<128, 128, MinSplitBlocks(128, 2)>(grid, b, h, s_q, s_k, causal);
        break;
      case 1:
        ok = ok && CheckTail<128, 192, MinSplitBlocks(64, 3)>(grid, b, h, s_q, s_k, causal);
        break;
      default:
        ok = ok && CheckTail<64, 128, MinSplitBlocks(256, 2)>(grid, b, h, s_q, s_k, causal);
        break;
    }
    ++tails;
  }
  if (!ok) return 1;
  std::printf("ok: FastDiv and UnitTile agree with division\n");
  std::printf("ok: %d random pool plans and %d tail plans cover every tile (and key block) once\n",
              pools, tails);
  return 0;
}
