#!/usr/bin/env python3
"""Small seeds for the `pdf_reader` fuzz target, cut from real PDFs.

Each page of each PDF in SRC becomes its own PDF in OUT, without the parts a
text reader does not read: embedded font programs (/FontFile, /FontFile2,
/FontFile3) and image XObjects. What stays is the page's own content stream
(compressed as it was), its fonts' dictionaries, encodings, widths and
ToUnicode maps, and the document's structure. A whole dev PDF is 0.1-4 MB
and is read by the fuzzer at about 17 inputs a second; a page cut this way is
a few kilobytes, so the fuzzer's mutations reach the reader's layout and the
PDF crates' parsers on real-world content many times faster.

Needs pikepdf (`pip install pikepdf`).
Usage: scripts/fuzz_pdf_seeds.py SRC_DIR OUT_DIR [MAX_BYTES]
       (pages larger than MAX_BYTES, default 65536, are left out)
"""
import pathlib
import sys

import pikepdf


def strip(pdf: pikepdf.Pdf) -> None:
    for obj in pdf.objects:
        if not isinstance(obj, pikepdf.Dictionary):
            continue
        if obj.get("/Type") == "/FontDescriptor":
            for key in ("/FontFile", "/FontFile2", "/FontFile3"):
                if key in obj:
                    del obj[key]
    for page in pdf.pages:
        resources = page.obj.get("/Resources")
        if resources is None:
            continue
        xobjects = resources.get("/XObject")
        if xobjects is None:
            continue
        for name in list(xobjects.keys()):
            if xobjects[name].get("/Subtype") == "/Image":
                del xobjects[name]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    max_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 65536
    out.mkdir(parents=True, exist_ok=True)
    kept = skipped = 0
    for path in sorted(src.rglob("*.pdf")):
        try:
            whole = pikepdf.open(path)
        except pikepdf.PdfError as e:
            print(f"{path}: not read ({e})", file=sys.stderr)
            continue
        for i in range(len(whole.pages)):
            page = pikepdf.new()
            page.pages.append(whole.pages[i])
            strip(page)
            page.remove_unreferenced_resources()
            target = out / f"{path.stem}-p{i + 1}.pdf"
            page.save(target, compress_streams=True, object_stream_mode=pikepdf.ObjectStreamMode.preserve)
            if target.stat().st_size > max_bytes:
                target.unlink()
                skipped += 1
            else:
                kept += 1
    print(f"{kept} pages written to {out}, {skipped} over {max_bytes} bytes left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
