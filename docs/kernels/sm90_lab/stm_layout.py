"""s34_stm.patch checked without a GPU: emulates StoreTile's staging writes for one consumer, the
committed file's 4-byte stores against stmatrix x4 (PTX's m8n8 fragment: lane 4j + q holds row j,
columns 2q and 2q + 1 of each block; lanes 8i to 8i + 7 give block i's row addresses), and checks
that the same (row, column pair) of O lands at every byte. python3 stm_layout.py"""
ROWS, SW = 128, 128
for D in (64, 128, 256):
    old, new = {}, {}
    def label(t, c, r):  # the packed pair o_acc[c*4 + r*2 .. +1] of thread t: its row and columns
        lane = t % 32
        return ((t // 32) * 16 + lane // 4 + 8 * r, c * 8 + (lane % 4) * 2)
    for t in range(128):
        lane = t % 32
        for r in range(2):
            row = (t // 32) * 16 + lane // 4 + 8 * r
            for dn in range(D // 8):
                addr = (dn // 8) * ROWS * SW + row * SW + (((dn % 8) ^ (row % 8)) * 16) + (lane % 4) * 4
                assert addr not in old
                old[addr] = label(t, dn, r)
    for w in range(4):
        for dn in range(0, D // 8, 2):
            addrs = {}
            for lane in range(32):
                t = w * 32 + lane
                i_blk = lane // 8
                row = (t // 32) * 16 + lane % 8 + 8 * (i_blk % 2)
                col = dn + i_blk // 2
                addrs[lane] = (col // 8) * ROWS * SW + row * SW + (((col % 8) ^ (row % 8)) * 16)
            for i in range(4):  # matrix i: rows from lanes 8i..8i+7, data v[i] of lanes 4j..4j+3
                c, r = dn + i // 2, i % 2
                for j in range(8):
                    base = addrs[8 * i + j]
                    assert base % 16 == 0
                    for q in range(4):
                        t = w * 32 + 4 * j + q
                        a = base + 4 * q
                        assert a not in new
                        new[a] = label(t, c, r)
    ok = old == new
    print(f"D={D}: {len(old)} words, stmatrix layout {'identical' if ok else 'DIFFERENT'}")
    assert ok
