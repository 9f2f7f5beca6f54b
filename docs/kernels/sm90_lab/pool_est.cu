// The causal planner's two estimates per shape (EstimatePaths): the pool's and round-robin
// with the tail launch's, in half key blocks, and their ratio (tail / pool; under 1: the tail
// path estimated shorter). Host only, for choosing PoolWins' margins here (no GPU):
//   nvcc -std=c++20 -O1 -gencode=arch=compute_90a,code=compute_90a -Ikernels \
//     docs/kernels/sm90_lab/pool_est.cu -o /tmp/pool_est && /tmp/pool_est
// (-Ikernels: the file includes attention_fwd/sm90.cu, as tests/kernels/sm90_plan_test.cu does.)
#include <cstdio>

#include "attention_fwd/sm90.cu"

namespace {

template <int D, int kBlockN, int kRows, int kConsumers>
void Estimate(int b, int h, int s) {
  FwdParams p = {};
  p.batch = b;
  p.heads = h;
  p.heads_kv = h;
  p.s_q = s;
  p.s_k = s;
  p.causal = true;
  p.num_m_tiles = (s + kRows - 1) / kRows;
  SetDivisors(&p);
  constexpr int grid = 132;
  const PathTimes t = EstimatePaths<kBlockN, kRows, MinSplitBlocks(D, kConsumers)>(grid, p);
  const int longest = KvBlocks<kBlockN, kRows>((p.num_m_tiles - 1) * kRows, p) * kBlockN;
  std::printf("d=%3d b=%2d h=%2d s=%5d units=%4d %s pool %6lld tail %6lld tail/pool %.2f\n", D, b,
              h, s, NumUnits(p), longest >= MinPoolKeys(D) ? "long " : "short",
              static_cast<long long>(t.pool), static_cast<long long>(t.tail),
              static_cast<double>(t.tail) / static_cast<double>(t.pool));
}

// As attention_fwd picks the kernel: d = 64 causal up to 1024 keys on two consumers.
void EstimateAll(int b, int h, int s) {
  if (s <= 1024) {
    Estimate<64, 128, 128, 2>(b, h, s);
  } else {
    Estimate<64, 128, 192, 3>(b, h, s);
  }
  Estimate<128, 128, 128, 2>(b, h, s);
  Estimate<256, 64, 128, 2>(b, h, s);
}

}  // namespace

int main() {
  // The perf grid's causal inputs (b = 16384 / s; h = 32, 16, 8 at d = 64, 128, 256).
  for (int s = 512; s <= 16384; s *= 2) {
    if (s <= 1024) {
      Estimate<64, 128, 128, 2>(16384 / s, 32, s);
    } else {
      Estimate<64, 128, 192, 3>(16384 / s, 32, s);
    }
    Estimate<128, 128, 128, 2>(16384 / s, 16, s);
    Estimate<256, 64, 128, 2>(16384 / s, 8, s);
  }
  // Shapes of few (batch, head) pairs below MinPoolKeys, and tails.py's pool grid.
  const int odd[][3] = {{1, 40, 1536}, {2, 20, 1024}, {2, 12, 1536}, {1, 36, 1024},
                        {1, 20, 2048}, {2, 7, 3072},  {1, 16, 2048}, {1, 5, 4096},
                        {1, 16, 4096}, {1, 3, 6144},  {1, 2, 7680}};
  for (const auto& [b, h, s] : odd) {
    EstimateAll(b, h, s);
  }
}
