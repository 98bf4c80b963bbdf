#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's layout: include/tfo/ is the installed API, src/ the layers.

    layout_test.py SOURCE_ROOT BUILD_ROOT

- the headers meson.build installs (install_headers) exist in include/tfo/
  and include no header but each other (a plugin builds with them alone);
- include/tfo/ holds exactly the installed headers; src/ holds only layer
  folders (and meson.build);
- the layers are the ones docs/architecture.md lists between its "layers"
  markers, bottom up, and a file includes from its own layer and the ones
  below (and include/tfo/), with no exception: an include that reaches up
  a layer fails, so the picture stays true;
- calls too: every `tfo_*` symbol an object of a layer in BUILD_ROOT's
  libtfo.a references (nm -u) is defined by an object of its own layer or
  one below, or by none of the layers' objects (the libraries, and what
  the build generates: the embedded configuration, the XDP program); one
  that only services/ define fails too (the engine calls a service only
  through its struct tfo_service).

(scripts/devtools/relayout.py made this layout from the flat src/ once,
issue 28; it is in the history.)
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'tap'))
from tfotap import Checks  # noqa: E402

T = Checks()
check = T.check


def installed(root):
    """The headers of meson.build's install_headers(...)."""
    with open(os.path.join(root, 'meson.build')) as f:
        m = re.search(r'install_headers\(([^)]*)\)', f.read())
    return sorted(re.findall(r"'(include/tfo/[^']+\.h)'", m.group(1))) if m else []


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def tfo_dir(root):
    d = os.path.join(root, 'include', 'tfo')
    return sorted('include/tfo/' + f for f in os.listdir(d))


def layers(root):
    """src/ folders, bottom up, as the architecture's layers list names them."""
    with open(os.path.join(root, 'docs', 'architecture.md')) as f:
        doc = f.read()
    part = doc.partition('<!-- layers: begin')[2].partition('<!-- layers: end')[0]
    return re.findall(r'^- src/([a-z_]+)/:', part, re.M)


def layered_checks(root, what):
    inst = installed(root)
    check('%s: include/tfo/ holds exactly the installed headers %s' % (what, inst),
          tfo_dir(root) == inst, 'also: %s' % sorted(set(tfo_dir(root)) - set(inst)))
    loose = [f for f in os.listdir(os.path.join(root, 'src'))
             if os.path.isfile(os.path.join(root, 'src', f)) and f != 'meson.build']
    check('%s: every file of src/ is in a layer folder' % what, not loose, loose)


def upward(root, order):
    """(file, include) pairs that reach up a layer."""
    bad = []
    for layer in order:
        for d, _, files in os.walk(os.path.join(root, 'src', layer)):
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                path = os.path.join(d, f)
                for inc in includes(path):
                    top = inc.split('/')[0]
                    if top in order and order.index(top) > order.index(layer):
                        bad.append('%s -> %s' % (os.path.relpath(path, root), inc))
    return bad


def members(build):
    """{archive member: (defined tfo_ symbols, referenced tfo_ symbols)} of
    BUILD/libtfo.a, by nm (a thin archive: meson's)."""
    lib = os.path.join(build, 'libtfo.a')
    out = subprocess.run(['nm', '-A', lib], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        m = re.match(r'^[^:]+:(?:[^:]*/)?([^/:]+\.o):\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(tfo_\w+)$',
                     line)
        if m is None:
            continue
        obj, kind, sym = m.groups()
        d, u = objs.setdefault(obj, (set(), set()))
        if kind == 'U':
            u.add(sym)
        elif kind.isupper():
            d.add(sym)
    return objs


def obj_layer(obj, order):
    """The layer of member "src_<layer>_<file>.c.o", 'services' for
    "services_*", else None (generated: meson-generated_*)."""
    m = re.match(r'^src_([a-z]+)_', obj)
    if m and m.group(1) in order:
        return m.group(1)
    return 'services' if obj.startswith('services_') else None


def upward_calls(objs, order):
    """(object, symbol, defining layer) for each reference up a layer."""
    where = {}
    for obj, (defined, _) in objs.items():
        for sym in defined:
            where.setdefault(sym, obj_layer(obj, order))
    bad = []
    for obj, (_, used) in sorted(objs.items()):
        layer = obj_layer(obj, order)
        if layer not in order:
            continue
        for sym in sorted(used):
            at = where.get(sym)
            if at == 'services' or (at in order and order.index(at) > order.index(layer)):
                bad.append('%s -> %s (%s)' % (obj, sym, at))
    return bad


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..'))
    inst = installed(root)
    check('meson.build installs headers (%d)' % len(inst), len(inst) >= 2, inst)
    names = {os.path.relpath(p, 'include') for p in inst}
    for p in inst:
        ok = os.path.exists(os.path.join(root, p))
        bad = [i for i in includes(os.path.join(root, p)) if i not in names] if ok else []
        check('%s exists and includes only installed headers' % p, ok and not bad, bad)
    layered_checks(root, 'the tree')
    order = layers(root)
    folders = sorted(f for f in os.listdir(os.path.join(root, 'src'))
                     if os.path.isdir(os.path.join(root, 'src', f)))
    check('the architecture lists the layers, and they are src/\'s folders %s' % order,
          len(order) >= 2 and sorted(order) == folders, 'folders: %s' % folders)
    bad = upward(root, order)
    check('no include reaches up a layer, no exception', not bad, bad)
    build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, 'build')
    objs = members(build) if os.path.exists(os.path.join(build, 'libtfo.a')) else {}
    layered = {o for o in objs if obj_layer(o, order) in order}
    check('libtfo.a in %s has objects of every layer' % build,
          {obj_layer(o, order) for o in layered} == set(order), sorted(objs))
    bad = upward_calls(objs, order)
    check('no object calls up a layer (nm: %d objects of layers)' % len(layered), not bad, bad)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
