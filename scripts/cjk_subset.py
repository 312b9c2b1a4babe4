#!/usr/bin/env python3
"""Builds the CJK fonts of the interface from a Debian font (fonts-noto-cjk), at build time.

  cjk_subset.py --font NotoSansCJK-Regular.ttc --family "Noto Sans CJK SC" \
                --strings src/core/lang/zh.inc --strings src/core/lang/zh_fields.inc [--strings …] --out zh.otf \
                --switch-strings src/core/lang/en.inc --switch-out switch.otf

--out holds every non-ASCII character of the Chinese tables (ASCII comes from the UI's
Latin font); --switch-out only the CJK characters of the English table (the language switch's
"中文"), small enough to be compiled into every build so the English page can offer Chinese.
Needs Debian's python3-fonttools.
"""
import argparse
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont


def face(path, family):
    if path.lower().endswith((".ttc", ".otc")):
        for i, f in enumerate(TTCollection(path, lazy=True).fonts):
            if f["name"].getDebugName(1) == family:
                return TTFont(path, fontNumber=i, lazy=False)
        sys.exit(f"cjk_subset: no face named {family!r} in {path}")
    return TTFont(path)


def write_subset(path, family, chars, out):
    font = face(path, family)
    opts = subset.Options()
    opts.hinting = False
    opts.layout_features = []
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6]  # keep the copyright, names and version
    opts.notdef_outline = True
    opts.desubroutinize = True  # plain charstrings compress better
    s = subset.Subsetter(opts)
    s.populate(unicodes=sorted(chars))
    s.subset(font)
    missing = [c for c in chars if c not in font.getBestCmap()]
    if missing:
        sys.exit("cjk_subset: the font lacks " + " ".join(f"U+{c:04X}" for c in missing))
    font.save(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--font", required=True)
    ap.add_argument("--family", required=True)
    ap.add_argument("--strings", required=True, action="append", help="a Chinese table; repeat for each")
    ap.add_argument("--out", required=True)
    ap.add_argument("--switch-strings", required=True)
    ap.add_argument("--switch-out", required=True)
    a = ap.parse_args()
    text = "".join(open(p, encoding="utf-8").read() for p in a.strings)
    chars = {ord(c) for c in text if ord(c) > 0x7F}
    write_subset(a.font, a.family, chars, a.out)
    en = open(a.switch_strings, encoding="utf-8").read()
    cjk = {ord(c) for c in en if 0x2E80 <= ord(c) <= 0x9FFF or 0xFF00 <= ord(c) <= 0xFFEF}
    if not cjk:
        sys.exit("cjk_subset: the English table names no CJK characters (the language switch)")
    write_subset(a.font, a.family, cjk, a.switch_out)


if __name__ == "__main__":
    main()
