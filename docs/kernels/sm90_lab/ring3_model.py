"""A host model of d = 256's V ring with O staged over it, as ring3 (s48_ring3.patch) runs it:
the producer, two consumers taking turns, mbarriers with parity waits, TMA loads and O stores
that land or are read at random later times. Random walks (tiles of 1-5 key blocks) under
random interleavings; it fails on a deadlock, on a parity wait that passes before its phase,
on a V load over rows not yet read, on O rows written over a V still in use or being loaded,
and on a P V product that reads anything but its own block's V. Q's buffer is left out.

  python3 docs/kernels/sm90_lab/ring3_model.py [RUNS] [PROTOCOL]   (default 3000 runs; no GPU)

PROTOCOL `head` runs the committed file's rules on its two V slots instead (they pass too).
The others break one of ring3's rules, to show the model catches it: `no-read1` (a V over
consumer 0's rows does not wait for their read), `two-slots` (these rules on head's two V
slots), `one-block` (a tile of one block does not wait for the reads before its V), `late-c1`
(the last tile's consumer 1 rows stored after the tile's second V rather than its first, one
store in flight at a time: a tile of two blocks then lets the consumers finish it before the
producer waits for the rows before, and the parity wait on o_full never passes).

It models the protocol as the patch's comments state it, not the compiled code: it says
whether the rules hold together, not whether the patch follows them (the harness's check does
that, on the GPU).
"""
import random
import sys

V_STAGES, K_STAGES, CONSUMERS = 3, 2, 2


class Barrier:
    def __init__(self, count):
        self.count, self.arrived, self.phase = count, 0, 0

    def arrive(self):
        self.arrived += 1
        if self.arrived == self.count:
            self.arrived, self.phase = 0, self.phase + 1


class Stuck(Exception):
    pass


class Model:
    def __init__(self, tiles, rng, mutant):
        self.tiles, self.rng, self.mutant = tiles, rng, mutant
        self.v_stages = 2 if mutant in ("two-slots", "head") else V_STAGES
        self.k_full = [Barrier(1) for _ in range(K_STAGES)]
        self.k_empty = [Barrier(CONSUMERS) for _ in range(K_STAGES)]
        self.v_full = [Barrier(1) for _ in range(self.v_stages)]
        self.v_empty = [Barrier(CONSUMERS) for _ in range(self.v_stages)]
        self.o_full = [Barrier(1) for _ in range(CONSUMERS)]
        self.slot = [None] * self.v_stages      # ("V", block, landed) or ("O", tile, consumer)
        self.in_flight = []                # loads to land: (barrier, slot or None, block)
        self.groups = []                   # the producer's bulk store groups: [slot, read?]
        self.turn = 0                      # the consumer whose turn it is

    def wait(self, bar, index):
        """A parity wait for the completion of phase `index`: passes once the barrier's parity
        differs from index's, which is too early where the barrier is a phase behind."""
        while bar.phase % 2 == index % 2:
            yield
        if bar.phase <= index:
            raise AssertionError(f"parity wait for phase {index} passed at phase {bar.phase}")

    def producer(self):
        i = 0
        reads = 0
        rows_block = [0, 0]
        last = None  # (tile number, last block) of the tile before

        def load(ring_full, ring_empty, stages, block, is_v):
            s = block % stages
            if block >= stages:  # the release of block - stages
                yield from self.wait(ring_empty[s], block // stages - 1)
            if is_v:
                held = self.slot[s]
                if held is not None and held[0] == "O":
                    raise AssertionError(f"V {block} loaded over rows {held}")
                if held is not None and held[0] == "V" and held[1] != block - stages:
                    raise AssertionError(f"V {block} over V {held[1]}")
                self.slot[s] = ("V", block, False)
            self.in_flight.append((ring_full[s], s if is_v else None, block))

        def store(tile, c, kv_last):
            yield from self.wait(self.o_full[c], tile)
            use = kv_last - (CONSUMERS - 1 - c)
            s = use % self.v_stages
            if self.slot[s] != ("O", tile, c):
                raise AssertionError(f"store of tile {tile} rows {c} finds {self.slot[s]}")
            self.groups.append([s, False])

        def wait_reads(keep):
            while any(not g[1] for g in self.groups[:len(self.groups) - keep]):
                yield
            del self.groups[:len(self.groups) - keep]

        pending = None      # late-c1: the block whose slot holds the one store being read
        c1_unstored = False  # late-c1: the last tile's consumer 1 rows, stored after the next V

        def load_v_late_c1(block, more):
            nonlocal pending, c1_unstored, last
            s = block % self.v_stages
            if pending is not None and s == pending % self.v_stages:
                yield from wait_reads(0)
                pending = None
            if last is not None:
                tile, kv_last = last
                last = None
                if not more:
                    yield from store(tile, 0, kv_last)
                    yield from store(tile, 1, kv_last)
                    yield from wait_reads(0)
                    pending = None
                else:
                    yield from load(self.v_full, self.v_empty, self.v_stages, block, True)
                    yield from store(tile, 0, kv_last)
                    pending = kv_last - 1
                    c1_unstored = (tile, kv_last)
                    return
            yield from load(self.v_full, self.v_empty, self.v_stages, block, True)
            if c1_unstored:
                tile, kv_last = c1_unstored
                c1_unstored = False
                yield from store(tile, 1, kv_last)
                pending = kv_last

        last_rows = False  # head: consumer 1's store of the last tile not yet read

        def load_v_head(block, more):
            # The committed file's rules on its two V slots: the tile's first V goes into
            # consumer 0's slot, after its rows' store was read; consumer 1's store goes out
            # after that V (before it in a tile of one block), and the next V waits for its read.
            nonlocal last, last_rows
            if last is not None:
                tile, kv_last = last
                last = None
                yield from store(tile, 0, kv_last)
                if not more:
                    yield from store(tile, 1, kv_last)
                yield from wait_reads(0)
                yield from load(self.v_full, self.v_empty, self.v_stages, block, True)
                if more:
                    yield from store(tile, 1, kv_last)
                last_rows = more
                return
            if last_rows:
                yield from wait_reads(0)
                last_rows = False
            yield from load(self.v_full, self.v_empty, self.v_stages, block, True)

        def load_v(block, more):
            nonlocal reads, last
            if self.mutant == "late-c1":
                yield from load_v_late_c1(block, more)
                return
            if self.mutant == "head":
                yield from load_v_head(block, more)
                return
            s = block % self.v_stages
            if reads > 0 and s == rows_block[1] % self.v_stages:
                yield from wait_reads(0)
                reads = 0
            elif reads == 2 and s == rows_block[0] % self.v_stages and self.mutant != "no-read1":
                yield from wait_reads(1)
                reads = 1
            if last is not None:
                tile, kv_last = last
                last = None
                if not more:
                    yield from store(tile, 0, kv_last)
                    yield from store(tile, 1, kv_last)
                    if self.mutant == "one-block":
                        reads = 2
                        rows_block[:] = [kv_last - 1, kv_last]
                    else:
                        yield from wait_reads(0)
                else:
                    yield from load(self.v_full, self.v_empty, self.v_stages, block, True)
                    yield from store(tile, 0, kv_last)
                    yield from store(tile, 1, kv_last)
                    reads = 2
                    rows_block[:] = [kv_last - 1, kv_last]
                    return
            yield from load(self.v_full, self.v_empty, self.v_stages, block, True)

        for t, n in enumerate(self.tiles):
            for it in range(n):
                yield from load(self.k_full, self.k_empty, K_STAGES, i, False)
                if it > 0:
                    yield from load_v(i - 1, True)
                i += 1
            yield from load_v(i - 1, False)
            last = (t, i - 1)
        if last is not None:
            yield from store(last[0], 0, last[1])
            yield from store(last[0], 1, last[1])
        yield from wait_reads(0)

    def consumer(self, c):
        i = 0

        def take_turn():
            while self.turn != c:
                yield

        def pass_turn():
            self.turn = 1 - self.turn

        def check_v(block):
            held = self.slot[block % self.v_stages]
            if held != ("V", block, True):
                raise AssertionError(f"consumer {c} P V of block {block} reads {held}")

        for t, n in enumerate(self.tiles):
            yield from self.wait(self.k_full[i % K_STAGES], i // K_STAGES)
            yield from take_turn()
            pass_turn()
            yield
            self.k_empty[i % K_STAGES].arrive()
            for _ in range(1, n):
                nxt = i + 1
                yield from self.wait(self.k_full[nxt % K_STAGES], nxt // K_STAGES)
                yield from self.wait(self.v_full[i % self.v_stages], i // self.v_stages)
                yield from take_turn()
                check_v(i)
                pass_turn()
                yield
                self.k_empty[nxt % K_STAGES].arrive()
                yield
                check_v(i)
                self.v_empty[i % self.v_stages].arrive()
                i = nxt
            yield from self.wait(self.v_full[i % self.v_stages], i // self.v_stages)
            yield from take_turn()
            check_v(i)
            pass_turn()
            yield
            check_v(i)
            self.v_empty[i % self.v_stages].arrive()
            # StoreTile: its rows over the V slot of block `use`, once every consumer has
            # released that block.
            use = i - (CONSUMERS - 1 - c)
            if use >= 0:
                yield from self.wait(self.v_empty[use % self.v_stages], use // self.v_stages)
            s = use % self.v_stages
            held = self.slot[s]
            if held is not None and held[0] == "V" and held[1] != use:
                raise AssertionError(f"consumer {c} rows of tile {t} over V {held[1]} (block {use})")
            if held is not None and held[0] == "O":
                raise AssertionError(f"consumer {c} rows of tile {t} over rows {held}")
            self.slot[s] = ("O", t, c)
            self.o_full[c].arrive()
            i += 1
        if c == 0:
            yield from take_turn()  # the last hand-over

    def run(self):
        agents = [self.producer(), self.consumer(0), self.consumer(1)]
        alive = list(agents)
        idle = 0
        while alive or self.in_flight:
            moves = len(alive) + (2 if self.in_flight else 0) + (2 if self.groups else 0)
            pick = self.rng.randrange(moves)
            if pick < len(alive):
                agent = alive[pick]
                try:
                    next(agent)
                except StopIteration:
                    alive.remove(agent)
                idle += 1
            elif self.in_flight and pick < len(alive) + 2:
                bar, s, block = self.in_flight.pop(self.rng.randrange(len(self.in_flight)))
                if s is not None:
                    self.slot[s] = ("V", block, True)
                bar.arrive()
                idle = 0
            else:
                unread = [g for g in self.groups if not g[1]]
                if unread:
                    g = self.rng.choice(unread)
                    g[1] = True
                    self.slot[g[0]] = None
                    idle = 0
            if idle > 20000:
                raise Stuck("no agent moved in 20000 steps")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    mutant = sys.argv[2] if len(sys.argv) > 2 else None
    if mutant not in (None, "head", "late-c1", "no-read1", "two-slots", "one-block"):
        sys.exit(f"unknown protocol {mutant}: head, no-read1, two-slots, one-block or late-c1")
    rng = random.Random(1)
    for run in range(runs):
        tiles = [rng.choice([1, 1, 2, 2, 3, 5]) for _ in range(rng.randrange(1, 9))]
        try:
            Model(tiles, rng, mutant).run()
        except (AssertionError, Stuck) as e:
            print(f"run {run}, tiles {tiles}: {e}")
            sys.exit(1)
    print(f"{runs} walks (tiles of 1-5 blocks){' with ' + mutant if mutant else ''}: "
          "no hazard, no deadlock")


if __name__ == "__main__":
    main()
