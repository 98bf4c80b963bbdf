#!/usr/bin/env python3
"""The installed default configuration: installed_config.py IN OUT DATADIR.

IN is the embedded default (config/tfo-server.ini); OUT is the same text
with each relative path of the keys that name files (root, rules, zone,
cookie_secret_file, access_log, plugin, key_file; commented-out examples too)
made absolute under DATADIR, the installed datadir/tfo-fastpath: the file
lives in sysconfdir, where relative paths would resolve, and the default
page and zones do not. A path it cannot place fails the build."""
import re
import sys

src, dst, datadir = sys.argv[1:4]
PATH_KEYS = ('root', 'rules', 'cookie_secret_file', 'access_log', 'plugin', 'key_file')
KEY = re.compile(r'^(?P<lead>[;#]?\s*)(?P<key>[a-z_]+)(?P<eq>\s*=\s*)(?P<val>\S.*?)\s*$')


def absolute(value):
    return value if value.startswith('/') else datadir + '/' + value


out = []
for line in open(src).read().splitlines():
    m = KEY.match(line)
    if m and m['key'] in PATH_KEYS:
        line = m['lead'] + m['key'] + m['eq'] + absolute(m['val'])
    elif m and m['key'] == 'zone' and ':' in m['val']:
        origin, _, path = m['val'].partition(':')
        line = m['lead'] + 'zone' + m['eq'] + origin + ':' + absolute(path)
    out.append(line)
text = '\n'.join(out) + '\n'
text = text.replace(
    '; tfo-server: the embedded default configuration.\n',
    '; tfo-server: the installed default configuration (tfo-server.service\'s).\n'
    '; The embedded default, with its files named in full under ' + datadir + '.\n', 1)
if datadir not in text or 'root = ' + datadir + '/www' not in text:
    sys.exit('installed_config.py: no [service http] root = www in ' + src)
open(dst, 'w').write(text)
