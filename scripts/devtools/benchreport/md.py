"""Markdown: the figures' formats, tfo-bench's outputs as blocks, and the
summary table's rows across runs (the previous run beside, a partial run's
rows merged in)."""
import os
import re


def fmt(v, f='{:,.0f}'):
    return f.format(v) if v == v else 'n/a'


def us(v):
    """A latency in microseconds: a decimal below 10 us."""
    if v != v:
        return 'n/a'
    return f'{v:.1f}' if v < 10 else f'{v:,.0f}'


def off_target(got, target):
    """The rate achieved differs from the target by more than 2 %."""
    return target and got == got and abs(got - target) > 0.02 * target


def verdict(ok, have):
    return ('met' if ok else 'not met') if have else 'n/a (not measured)'


def slash(vals, f='{:,.0f}'):
    return ' / '.join(fmt(v, f) for v in vals) if vals else 'n/a'


def targets(items):
    """A section's targets as a list: (what, verdict, the figures behind it)."""
    return [f"- {what}: **{v}**{f' ({why})' if why else ''}" for what, v, why in items]


def picture(png, what):
    """The link to a section's picture @p png (none: []), with what it draws."""
    return ['', f"The picture: [{png}]({png}) ({what})."] if png else []


def code_block(raw, name, title):
    """A tfo-bench output: its comment lines in code blocks, its tables as
    tables, in their order."""
    path = os.path.join(raw, name)
    if not os.path.exists(path):
        return ''
    keep = [x.rstrip() for x in open(path)
            if not x.startswith(('tfo:', 'TELEMETRY', 'EAL:')) and x.strip()]
    out = [f'### {title}']
    prev = None
    for x in keep:
        kind = x.startswith('|')
        if kind != prev:
            if prev is False:
                out.append('```')
            out.append('')
            if not kind:
                out.append('```')
            prev = kind
        out.append(x)
    if prev is False:
        out.append('```')
    return '\n'.join(out) + '\n'


def row_key(measure):
    """A summary row's identity across runs: its measure without the
    parenthesised figures, markup or spacing."""
    m = re.sub(r'\([^()]*\)', '', measure.replace('**', '').replace('`', ''))
    return re.sub(r'\s+', ' ', m).strip(' :;,')


def first_number(text):
    g = re.search(r'-?[0-9][0-9,]*(?:\.[0-9]+)?', text.replace('**', ''))
    return float(g.group(0).replace(',', '')) if g else float('nan')


def previous(path):
    """row_key -> the median cell of the previous report's summary table."""
    prev = {}
    if not path or not os.path.exists(path):
        return prev
    for line in open(path):
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        if len(c) >= 4 and line.startswith('|') and c[0] not in ('#', '---') and \
                not c[0].startswith('-'):
            prev.setdefault(row_key(c[1]), c[2].replace('**', ''))
    return prev


def with_previous(lines, prev):
    """Add the previous run's figure and the change to the summary table."""
    out = []
    for line in lines:
        if line.startswith('| # |'):
            out.append(line + ' previous run (change) |')
        elif line.startswith('|---'):
            out.append(line + '---|')
        elif line.startswith('| '):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            old = prev.get(row_key(c[1])) if len(c) > 2 else None
            if old is None:
                cell = 'new'
            else:
                a, b = first_number(old), first_number(c[2])
                cell = old + (f' ({(b - a) / a * 100:+.1f}%)' if a == a and b == b and a else '')
            out.append(line + f' {cell} |')
        else:
            out.append(line)
    return out


# a group of rows new to the summary table goes after this one, as in a
# full run's (else at the end)
GROUP_AFTER = {'lat': '2/3'}


def merge_rows(old_body, new_summary, note):
    """A partial run's table rows into the summary table (old_body): a row
    with the same measure (row_key) is replaced, a new one goes after the
    last row of its group (the # column), else at the end of the table;
    @p note is added after the table."""
    old = old_body.split('\n')
    if '| 4f |' in new_summary:	# the flood rows that 4f replaces (pipeline_slow had them)
        old = [x for x in old if not row_key(x).startswith('| 4s | tfo-bench pipeline --flood,')]
    if '| lat | idle_policy ' in new_summary:	# the latency phase replaces the idle_sleep_us rows
        old = [x for x in old if not (x.startswith('| lat |') and 'idle_sleep_us =' in x)]
    rows = [x for x in new_summary.split('\n') if x.startswith('| ') and not
            x.startswith('| # |')]
    table = [i for i, x in enumerate(old) if x.startswith('|')]
    if not table:
        return None
    for row in rows:
        c = [x.strip() for x in row.strip().strip('|').split('|')]
        key, group = row_key(c[1]), c[0]
        table = [i for i, x in enumerate(old) if x.startswith('|')]
        same = [i for i in table
                if row_key(old[i].strip().strip('|').split('|')[1].strip()) == key]
        if same:
            old[same[0]] = row
            continue
        grp = [i for i in table if old[i].strip().strip('|').split('|')[0].strip() == group]
        if not grp and group in GROUP_AFTER:
            grp = [i for i in table
                   if old[i].strip().strip('|').split('|')[0].strip() == GROUP_AFTER[group]]
        old.insert((grp or table)[-1] + 1, row)
    last = max(i for i, x in enumerate(old) if x.startswith('|'))
    old[last + 1:last + 1] = ['', note]
    return '\n'.join(old)
