#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Commit messages by the repository's rules (the spirit of DPDK's
devtools/check-git-log.sh, smaller).

    check-git-log.py [--repo DIR] [RANGE]      check RANGE (default BASELINE..HEAD)
    check-git-log.py --self-test               the rules on a scratch repository

Every commit of the range:
- its subject is at most 72 characters and not empty (the why goes in
  the body, not in a long subject);
- a change of more than FEW_LINES lines (added + removed) has a body that
  says why;
- a merge on the range's first-parent line (main's own merges) has a body
  that describes the series it brings (what, and how its conflicts were
  resolved), not only "Merge branch ..."; a merge inside a series (a
  branch taking in one it builds on) lands nothing by itself;
- no fixup!/squash! subject is left.

BASELINE is the main head when this check came in (issue 28): the 283
commits before it are history, not judged. Move it forward only to forgive a
commit that cannot be reworded any more (say why in the commit that moves
it).

Exit 0: every commit keeps the rules; 1: a commit breaks one (each named);
77 (skipped, with the reason): no git, not a git checkout (a source
tarball), or a shallow clone that does not hold BASELINE (CI can fetch with
--unshallow, or --shallow-exclude=BASELINE).
"""
import os
import shutil
import subprocess
import sys
import tempfile

BASELINE = '4c7e5150f68fb392ecfa7f85c0a85b969efbfcaf'
SUBJECT_MAX = 72
FEW_LINES = 10
SKIP = 77


def git(repo, *args, check=True):
    r = subprocess.run(['git', '-C', repo] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError('git %s: %s' % (' '.join(args), r.stderr.strip()))
    return r


def body_lines(body):
    """The lines of a body that say something: no trailers (Signed-off-by:),
    no comments git left (# Conflicts:), no blank lines."""
    out = []
    for line in body.splitlines():
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        if s.split(':')[0].endswith('-by') and ':' in s:
            continue
        out.append(s)
    return out


# one record per commit from one `git log` (a git process per commit took
# a minute of CI for ~700 commits): fields NUL-separated after a marker
# line, then the --numstat lines
MARK = '\x01commit\x01'
LOG_FORMAT = MARK + '%H%x00%h%x00%P%x00%s%x00%b%x00'


def read_commits(repo, *revs):
    """[{sha, short, parents, subject, body, changed}] of `git log @p revs`,
    oldest first; changed: lines added + removed (a binary file counts as
    FEW_LINES + 1), 0 for a merge (git log gives a merge no numstat)."""
    out = git(repo, 'log', '--reverse', '--numstat', '--format=' + LOG_FORMAT,
              *revs).stdout
    commits = []
    for rec in out.split(MARK)[1:]:
        sha, short, parents, subject, body, stat = rec.split('\0', 5)
        n = 0
        for line in stat.splitlines():
            if not line.strip():
                continue
            a, _, rest = line.partition('\t')
            d, _, _ = rest.partition('\t')
            n += FEW_LINES + 1 if a == '-' else int(a) + int(d)
        commits.append({'sha': sha, 'short': short, 'parents': parents.split(),
                        'subject': subject, 'body': body, 'changed': n})
    return commits


def problems_of(c, mainline=True):
    """What commit record @p c (read_commits) breaks (empty: nothing)."""
    subject = c['subject']
    said = body_lines(c['body'])
    bad = []
    if not subject.strip():
        bad.append('empty subject')
    if len(subject) > SUBJECT_MAX:
        bad.append('subject of %d characters (at most %d; the rest goes in the body)'
                   % (len(subject), SUBJECT_MAX))
    if subject.startswith(('fixup!', 'squash!', 'amend!')):
        bad.append('a fixup/squash commit left unsquashed')
    if len(c['parents']) > 1:
        # a merge inside a series (a branch taking in another one it
        # builds on) lands nothing on main: only main's own merges must
        # describe what they bring
        if not said and mainline:
            bad.append('a merge without a body: say what the series brings '
                       'and how its conflicts were resolved')
    elif c['changed'] > FEW_LINES and not said:
        bad.append('%d lines changed and no body: say why' % c['changed'])
    return bad


def problems(repo, sha, mainline=True):
    """What commit @p sha breaks (empty: nothing)."""
    return problems_of(read_commits(repo, '-1', sha)[0], mainline)


def check(repo, rng):
    """@return (exit code, lines to print)."""
    try:
        commits = read_commits(repo, rng)
    except RuntimeError as e:
        return 1, ['FAIL cannot list %s: %s' % (rng, e)]
    tip = rng.split('..')[-1] or 'HEAD'
    first = set(git(repo, 'rev-list', '--first-parent', rng if '..' in rng else tip).stdout.split())
    out, failed = [], 0
    for c in commits:
        bad = problems_of(c, c['sha'] in first)
        subject = '%s %s' % (c['short'], c['subject'])
        if bad:
            failed += 1
            out.append('FAIL %s' % subject)
            out += ['       %s' % b for b in bad]
        else:
            out.append('ok   %s' % subject)
    out.append('commits in %s: %d, breaking a rule: %d' % (rng, len(commits), failed))
    return (1 if failed else 0), out


def self_test():
    """Each rule on a scratch repository: a good series passes, each bad
    commit is caught, and only it."""
    with tempfile.TemporaryDirectory() as repo:
        env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.org',
                   GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@example.org')

        def commit(msg, lines, branch=None):
            if branch:
                git(repo, 'checkout', '-q', '-b', branch)
            with open(os.path.join(repo, 'f%d' % lines), 'a') as f:
                f.write('x\n' * lines)
            git(repo, 'add', '-A')
            subprocess.run(['git', '-C', repo, 'commit', '-q', '-m', msg], env=env, check=True)
            return git(repo, 'rev-parse', 'HEAD').stdout.strip()

        git(repo, 'init', '-q', '-b', 'main')
        base = commit('base: start', 1)
        cases = [
            ('ok', commit('area: a small change', 3)),
            ('ok', commit('area: a larger change\n\nWhy it was needed.', 40)),
            ('long', commit('area: ' + 'x' * 70, 3)),
            ('nobody', commit('area: a larger change without a reason', 40)),
            ('nobody', commit('area: trailers only\n\nSigned-off-by: t <t@example.org>', 40)),
            ('fixup', commit('fixup! area: a small change', 2)),
        ]
        side = commit('side: on a branch\n\nWhy.', 12, branch='side')
        git(repo, 'checkout', '-q', 'main')
        commit('area: another on main', 2)
        subprocess.run(['git', '-C', repo, 'merge', '-q', '--no-ff', '-m',
                        "Merge branch 'side'", 'side'], env=env, check=True)
        cases.append(('merge', git(repo, 'rev-parse', 'HEAD').stdout.strip()))
        git(repo, 'reset', '-q', '--hard', 'HEAD~1')
        subprocess.run(['git', '-C', repo, 'merge', '-q', '--no-ff', '-m',
                        'Merge the side series\n\nIt brings one thing; no conflict.', side],
                       env=env, check=True)
        cases.append(('ok', git(repo, 'rev-parse', 'HEAD').stdout.strip()))
        results = []
        for want, sha in cases:
            bad = problems(repo, sha)
            got = 'ok' if not bad else bad[0]
            hit = (want == 'ok') == (not bad) and (
                want == 'ok' or {'long': 'subject of', 'nobody': 'lines changed',
                                 'fixup': 'fixup', 'merge': 'a merge'}[want] in got)
            results.append(hit)
            print('%s self-test: %s -> %s' % ('ok  ' if hit else 'FAIL', want, got))
        rc, out = check(repo, base + '..HEAD')
        ranged = rc == 1 and out[-1].endswith('breaking a rule: 4')
        print('%s self-test: the range check fails and counts 4 (%s)'
              % ('ok  ' if ranged else 'FAIL', out[-1]))
        return all(results) and ranged


def main(argv):
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    rng = None
    args = list(argv)
    selftest = '--self-test' in args
    if selftest:
        args.remove('--self-test')
    if len(args) >= 2 and args[0] == '--repo':
        repo = args[1]
        args = args[2:]
    if args:
        rng = args[0]
    if shutil.which('git') is None:
        print('SKIP: git is not installed')
        return SKIP
    ok = True
    if selftest:
        ok = self_test()
    inside = git(repo, 'rev-parse', '--is-inside-work-tree', check=False)
    if inside.returncode != 0 or inside.stdout.strip() != 'true':
        print('SKIP: %s is not a git checkout (a source tarball?): no commits to check'
              % os.path.abspath(repo))
        return SKIP if ok else 1
    if rng is None:
        have = git(repo, 'cat-file', '-e', BASELINE + '^{commit}', check=False).returncode == 0
        shallow = git(repo, 'rev-parse', '--is-shallow-repository',
                      check=False).stdout.strip() == 'true'
        if not have and shallow:
            print('SKIP: a shallow clone without the baseline %s: its commits cannot be '
                  'listed (git fetch --unshallow, or --shallow-exclude=%s)'
                  % (BASELINE[:12], BASELINE[:12]))
            return SKIP if ok else 1
        if not have:
            print('FAIL the baseline %s is not in this repository' % BASELINE[:12])
            return 1
        anc = git(repo, 'merge-base', '--is-ancestor', BASELINE, 'HEAD', check=False)
        if anc.returncode != 0:
            print('FAIL the baseline %s is not an ancestor of HEAD (history rewritten?)'
                  % BASELINE[:12])
            return 1
        rng = BASELINE + '..HEAD'
    rc, out = check(repo, rng)
    print('\n'.join(out))
    return 1 if rc or not ok else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
