"""The SASS of the attention kernels in built .so files, read with cuobjdump (on PATH).

  sass.py same A.so B.so        per kernel (by template arguments), whether A and B have the same
                                instructions, register names aside ("same"), or to the letter,
                                registers and addresses too ("identical"), and how many each has
  sass.py ops A.so REGEX        the op sequence of the first kernel whose name matches REGEX,
                                runs of one op folded ("2e70: MUFU x4"): where the F2FP, MUFU,
                                HGMMA and the waits (WARPGROUP.DEPBAR) fall in a loop
  sass.py loops A.so B.so       per kernel, the steady key-block loops (a backward branch over
                                300 to 1200 instructions with 8 or more HGMMA in them; the
                                barrier waits' retry branches span more) of A beside B's in
                                order, each "same" (register names and constants aside) or how
                                many of its instructions a diff finds added, removed or moved
                                (the third loop of a d = 128 kernel holds the tile's end): a
                                change to a tile's start or end that leaves ptxas's schedule of
                                the steady loops alone reads "same" for the first two (the pk
                                builds' did not, 293 and 144 changed, and lost 1-2.5% on long
                                inputs; ka128, epka, kas and ept did, s39)
"""
import difflib, re, subprocess, sys

KEY = re.compile(r"AttentionFwdKernelILi(\d+)ELi(\d+)ELb(\d)ELi(\d)ELNS_4WalkE(\d)")


def kernels(so):
    """{template-argument key: [(address, instruction)]} for every AttentionFwdKernel in so."""
    out = subprocess.run(["cuobjdump", "-sass", so], capture_output=True, text=True, check=True).stdout
    found, cur = {}, None
    for line in out.split("\n"):
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            k = KEY.search(m.group(1))
            cur = "d%s n%s bf16=%s c%s walk%s" % k.groups() if k else None
            if cur:
                found[cur] = []
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if cur and m:
            found[cur].append((m.group(1), m.group(2)))
    return found


def normal(ins):
    ins = re.sub(r"\bU?R\d+\b", "R", ins)
    ins = re.sub(r"\bU?P\d\b", "P", ins)
    return re.sub(r"0x[0-9a-f]+", "X", ins) if "BRA" in ins else ins


def loops(ins):
    """The [start, end] index ranges of ins's steady key-block loops (see the usage)."""
    at = {int(a, 16): n for n, (a, _) in enumerate(ins)}
    found = []
    for n, (a, i) in enumerate(ins):
        b = re.search(r"BRA[^;]*?0x([0-9a-f]+)", i)
        start = at.get(int(b.group(1), 16)) if b else None
        if start is not None and 300 <= n - start <= 1200 and \
                sum("HGMMA" in x for _, x in ins[start:n]) >= 8:
            found.append((start, n))
    return found


def bare(ins):
    """An instruction without registers, predicates or numbers: its op and operand shapes."""
    return re.sub(r"\bU?R[0-9Z]+\b|\bU?P[0-9T]\b|-?0x[0-9a-f]+|-?\d+(\.\d+)?", "#", ins)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "same":
        a, b = kernels(sys.argv[2]), kernels(sys.argv[3])
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                print(f"{k}: only in {sys.argv[2] if k in a else sys.argv[3]}")
                continue
            same = [normal(i) for _, i in a[k]] == [normal(i) for _, i in b[k]]
            identical = [i for _, i in a[k]] == [i for _, i in b[k]]
            verdict = "identical" if identical else "same" if same else "DIFFERENT"
            print(f"{k}: {verdict} ({len(a[k])} / {len(b[k])} instructions)")
    elif len(sys.argv) == 4 and sys.argv[1] == "loops":
        a, b = kernels(sys.argv[2]), kernels(sys.argv[3])
        for k in sorted(set(a) & set(b)):
            la, lb = loops(a[k]), loops(b[k])
            if len(la) != len(lb):
                print(f"{k}: {len(la)} / {len(lb)} loops")
                continue
            verdicts = []
            for (s1, e1), (s2, e2) in zip(la, lb):
                x = [bare(i) for _, i in a[k][s1:e1 + 1]]
                y = [bare(i) for _, i in b[k][s2:e2 + 1]]
                if x == y:
                    verdicts.append(f"{len(x)} same")
                else:
                    ops = difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes()
                    moved = sum(max(i2 - i1, j2 - j1) for t, i1, i2, j1, j2 in ops if t != "equal")
                    verdicts.append(f"{len(x)}/{len(y)} DIFFERENT ({moved} changed)")
            print(f"{k}: " + "; ".join(verdicts))
    elif len(sys.argv) == 4 and sys.argv[1] == "ops":
        ks = kernels(sys.argv[2])
        k = next((k for k in sorted(ks) if re.search(sys.argv[3], k)), None)
        if k is None:
            sys.exit(f"no kernel matches {sys.argv[3]!r}; kernels: {', '.join(sorted(ks))}")
        print(k)
        run = None
        for n, ins in ks[k]:
            op = ins.split()[1] if ins.startswith("@") else ins.split()[0]
            op = op.split(".")[0]
            if run and run[1] == op:
                run[2] += 1
                continue
            if run:
                print(f"{run[0]}: {run[1]} x{run[2]}")
            run = [n, op, 1]
        if run:
            print(f"{run[0]}: {run[1]} x{run[2]}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
