"""Minimax relative-error fit of 2^f on [-0.5, 0.5], degree 3 (Lawson iterations), for Exp2Fma
(s33_px4.patch, s33_px8.patch): prints the fp32 coefficients and their maximum relative error
evaluated in fp32 Horner order. Usage: python3 exp2fit.py"""
import numpy as np
f = np.linspace(-0.5, 0.5, 20001)
y = 2.0 ** f
A = np.vander(f, 4, increasing=True) / y[:, None]
w = np.ones_like(f) / len(f)
for it in range(2000):
    W = np.sqrt(w)
    c, *_ = np.linalg.lstsq(A * W[:, None], W, rcond=None)
    e = np.abs(A @ c - 1)
    w = w * e; w /= w.sum()
c32 = c.astype(np.float32)
# evaluate as the GPU would (fp32 Horner with fma approximated in float64 then rounded)
ff = f.astype(np.float32)
p = np.float32(c32[3])
for k in (2, 1, 0):
    p = (p.astype(np.float64) * ff + c32[k]).astype(np.float32)
print("coeffs", [float(x) for x in c32])
print("max rel err", np.max(np.abs(p / y - 1)))
