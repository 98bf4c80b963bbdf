#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The dns service's headers stay one floor each (issue 38).

    dns_layers_test.py SOURCE_ROOT

services/dns_wire.h lists the service's headers bottom up, each with the
files that implement it in parentheses. A header includes only headers
listed below it, and a source file only its own header and those below
it: so the zone store never calls the writer, the writer never the
composer, and the files cannot call each other in a circle again. The
headers beside the list (cookies, rate limiting, secondary zones) are
not ranked.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'tap'))
from tfotap import Checks  # noqa: E402

T = Checks()
check = T.check


def floors(root):
    """{file: rank} for the headers of dns_wire.h's list and their .c files."""
    with open(os.path.join(root, 'services', 'dns_wire.h')) as f:
        text = f.read()
    part = text.partition('bottom up')[2].partition('beside them')[0]
    rank = {}
    # "dns_X.h  what ... (a.c, b.c)", the parentheses maybe on the next line
    for i, (h, rest) in enumerate(re.findall(r'^ \*   (dns_\w+\.h)\s+(.*?)(?=^ \*   dns_|\Z)',
                                             part, re.M | re.S)):
        rank[h] = i
        for c in re.findall(r'(dns\w*\.c)', rest):
            rank[c] = i
    return rank


def main(root):
    rank = floors(root)
    check('dns_wire.h lists the service\'s floors (%d files)' % len(rank), len(rank) >= 15,
          sorted(rank))
    bad = []
    for name in sorted(os.listdir(os.path.join(root, 'services'))):
        if name not in rank:
            continue
        with open(os.path.join(root, 'services', name)) as f:
            incs = re.findall(r'^#include "(dns\w*\.h)"', f.read(), re.M)
        for inc in incs:
            if inc not in rank:
                continue
            ok = rank[inc] < rank[name] or (name.endswith('.c') and rank[inc] == rank[name])
            if not ok:
                bad.append('%s includes %s' % (name, inc))
    check('no dns file includes a header of a floor above its own', not bad, ' '.join(bad))
    missing = [f for f in rank if not os.path.exists(os.path.join(root, 'services', f))]
    check('every file of the list exists', not missing, missing)
    return T.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
