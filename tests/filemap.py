# SPDX-License-Identifier: BSD-3-Clause
"""docs/architecture.md's file map (section 2), parsed once for the checks
that read it: docs_test.py (every file it names exists, every .c file has a
row) and log_audit.py (the logging rule covers the files of the hot-path
rows).

A row is `| MARK | path, path, ... | what it does |`. MARK `H` (numbered in
the order a TFO SYN crosses it: H1, H2...) is the hot path; `C` is code that
runs once per frame on a control lcore. Both are held to the hot path's
logging rule. A path is the one the row states, from the repository's root:
a file moved into a folder is moved in its row, and the checks follow.
"""
import os
import re

ROW = re.compile(r'^\|([^|\n]*)\| ([^|\n]+) \|', re.M)
MARK = re.compile(r'^(|H[0-9]*|C)$')
PER_FRAME = ('H', 'C')


def rows(root):
    """@return [(mark, [path, ...]), ...] in the map's order (header and
    separator rows left out)."""
    with open(os.path.join(root, 'docs', 'architecture.md')) as f:
        doc = f.read()
    fmap = doc.partition('## 2. File map')[2].partition('\n## ')[0]
    out = []
    for mark, cells in ROW.findall(fmap):
        mark = mark.strip()
        paths = [n.strip().strip('`') for n in cells.split(',')]
        paths = [n for n in paths if n and n != 'file' and not set(n) <= set('-')]
        if paths:
            out.append((mark, paths))
    return out


def named(root):
    """Every path the file map names."""
    return [p for _, paths in rows(root) for p in paths]


def per_frame(root):
    """The source files (.c, .h) of the rows marked H or C: the files the
    logging rule covers."""
    return [p for mark, paths in rows(root) if mark.startswith(PER_FRAME)
            for p in paths if p.endswith(('.c', '.h'))]
