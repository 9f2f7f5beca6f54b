"""Wheels repacked to fit a device call: a wheel is a deflate zip, and its CUDA libraries
compress to a third of that with xz (fa3-fwd 0.0.3: 27.6 MB -> 9.2 MB), so the figure's wheels,
the bundle and the checkout fit one call's 64 MiB together.

  wheelx.py pack WHEEL... DIR      each WHEEL's files into DIR/NAME.whl.tar.xz (here)
  wheelx.py unpack ARCHIVE... DIR  each archive back into DIR/NAME.whl (on the GPU node); the
                                   files and their RECORD are the wheel's, stored uncompressed
"""
import io, lzma, os, sys, tarfile, zipfile


def pack(wheels, out):
    os.makedirs(out, exist_ok=True)
    for whl in wheels:
        dest = os.path.join(out, os.path.basename(whl) + ".tar.xz")
        with zipfile.ZipFile(whl) as z, lzma.open(dest, "wb", preset=9 | lzma.PRESET_EXTREME) as xz, \
                tarfile.open(fileobj=xz, mode="w|") as tar:
            for info in z.infolist():
                if info.is_dir():
                    continue
                data = z.read(info)
                ti = tarfile.TarInfo(info.filename)
                ti.size = len(data)
                ti.mode = (info.external_attr >> 16) & 0o777 or 0o644
                tar.addfile(ti, io.BytesIO(data))
        print(f"{whl}: {os.path.getsize(whl) / 1e6:.1f} MB -> {dest}: {os.path.getsize(dest) / 1e6:.1f} MB")


def unpack(archives, out):
    os.makedirs(out, exist_ok=True)
    for arc in archives:
        name = os.path.basename(arc)
        if not name.endswith(".whl.tar.xz"):
            sys.exit(f"{arc}: not a NAME.whl.tar.xz")
        dest = os.path.join(out, name[: -len(".tar.xz")])
        with tarfile.open(arc, "r:xz") as tar, zipfile.ZipFile(dest, "w", zipfile.ZIP_STORED) as z:
            for ti in tar:
                if not ti.isfile():
                    continue
                zi = zipfile.ZipInfo(ti.name)
                zi.external_attr = (ti.mode & 0o777) << 16
                z.writestr(zi, tar.extractfile(ti).read())
        print(f"{arc} -> {dest}")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("pack", "unpack"):
        sys.exit(__doc__)
    (pack if sys.argv[1] == "pack" else unpack)(sys.argv[2:-1], sys.argv[-1])
