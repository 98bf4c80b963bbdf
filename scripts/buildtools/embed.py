#!/usr/bin/env python3
"""Turn a file into a C string constant: embed.py IN OUT SYMBOL [binary].
With "binary" (an object file: NUL bytes), SYMBOL_len holds its length."""
import sys

src, dst, sym = sys.argv[1:4]
binary = sys.argv[4:5] == ['binary']
data = open(src, 'rb').read()
out = ['/* generated from %s by scripts/buildtools/embed.py; do not edit */' % src.split('/')[-1],
       'const char %s[] =' % sym]
for line in data.splitlines(keepends=True):
    esc = ''.join('\\%03o' % b if (b < 32 or b > 126 or b in (34, 92, 63)) else chr(b)
                  for b in line)
    out.append('\t"%s"' % esc)
out.append('\t"";')
if binary:
    out.append('const unsigned long %s_len = %d;' % (sym, len(data)))
open(dst, 'w').write('\n'.join(out) + '\n')
