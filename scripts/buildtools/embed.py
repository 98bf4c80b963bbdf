#!/usr/bin/env python3
"""Turn a text file into a C string constant: embed.py IN OUT SYMBOL."""
import sys

src, dst, sym = sys.argv[1:4]
data = open(src, 'rb').read()
out = ['/* generated from %s by scripts/buildtools/embed.py; do not edit */' % src.split('/')[-1],
       'const char %s[] =' % sym]
for line in data.splitlines(keepends=True):
    esc = ''.join('\\%03o' % b if (b < 32 or b > 126 or b in (34, 92, 63)) else chr(b)
                  for b in line)
    out.append('\t"%s"' % esc)
out.append('\t"";')
open(dst, 'w').write('\n'.join(out) + '\n')
