# Stall reasons and the stalled instructions' opcodes summed over an ncu source-page CSV
# (src.sh; gzipped): python3 stalls.py CSV.gz...
import csv, gzip, sys, io, collections, re
for fn in sys.argv[1:]:
    txt = gzip.open(fn, 'rt').read().split('\n')
    hdr = next(i for i, l in enumerate(txt) if l.startswith('"Address"'))
    rows = list(csv.DictReader(io.StringIO('\n'.join(txt[hdr:]))))
    cols = [c for c in rows[0] if c.startswith('stall_')]
    tot = collections.Counter(); by_op = collections.Counter(); samples = 0
    for r in rows:
        try: n = int(r['Warp Stall Sampling (All Samples)'])
        except: continue
        samples += n
        src = r['Source'].strip()
        op = src.split()[0] if not src.startswith('@') else src.split()[1]
        by_op[op.split('.')[0]] += n
        for c in cols:
            try: tot[c] += int(r[c])
            except: pass
    print(fn, 'samples', samples)
    print('  reasons:', ', '.join(f"{k[6:]} {v/samples:.1%}" for k, v in tot.most_common(9)))
    print('  by op:  ', ', '.join(f"{k} {v/samples:.1%}" for k, v in by_op.most_common(12)))
