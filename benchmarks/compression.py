"""Deflate engines measured on the main part of the big contract, in the peers' throw-away
environment (``pip install isal zlib-ng deflate``): the stdlib's zlib at the writer's level
(:data:`redline.opc.zipwrite.LEVEL`), zlib-ng, ISA-L and libdeflate (the writer's engine where
installed, :data:`redline.opc.zipwrite.ENGINE`) at each of their levels -- time (one stream,
one thread, median of 5) and size.  An engine would be adopted only if it is faster at no more
than 2% larger output; the table shows the best candidate within that bound, and the fastest
overall with its size."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

PACKAGES = ("isal", "zlib-ng", "deflate")

RUNNER = r"""
import json, statistics, sys, time, zipfile, zlib
path, base_level = sys.argv[1], int(sys.argv[2])
with zipfile.ZipFile(path) as z:
    xml = z.read("word/document.xml")
engines = {"zlib": (zlib, range(1, 10))}
try:
    from zlib_ng import zlib_ng
    engines["zlib-ng"] = (zlib_ng, range(1, 10))
except ImportError:
    pass
try:
    from isal import isal_zlib
    engines["isal"] = (isal_zlib, range(0, 4))
except ImportError:
    pass
try:
    import deflate
    engines["libdeflate"] = (deflate, range(1, 7))
except ImportError:
    pass
out = []
for name, (mod, levels) in engines.items():
    for level in levels:
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            if name == "libdeflate":
                size = len(mod.deflate_compress(xml, level))
            else:
                packer = mod.compressobj(level, mod.DEFLATED, -15)
                size = len(packer.compress(xml) + packer.flush())
            times.append(time.perf_counter() - t0)
        out.append({"engine": name, "level": level, "seconds": statistics.median(times), "bytes": size})
print(json.dumps({"xml": len(xml), "runs": out}))
"""


def measure(py: str, doc: Path, level: int) -> dict[str, object]:
    subprocess.run([py, "-m", "pip", "install", "-q", *PACKAGES], capture_output=True, timeout=600)
    proc = subprocess.run(
        [py, "-c", RUNNER, str(doc), str(level)], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result
