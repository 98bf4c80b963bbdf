#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/usertools/setup-host.sh in dry-run mode, against a fake /sys and /proc.

    setup_host_test.py PATH/TO/setup-host.sh [PATH/TO/tfo-server]

Each case builds a small sysfs/procfs tree (hugepage counts, NUMA nodes,
IOMMU groups, PCI devices with their driver and kernel interface, mounts), runs the
script with --dry-run and TFO_SYSFS/TFO_PROC pointing at it, and checks
the actions it prints, its exit status, and that nothing changed.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tap'))
from tfotap import Checks  # noqa: E402

SCRIPT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), '..', 'scripts', 'usertools', 'setup-host.sh')
SERVER = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'config')
T = Checks()
check = T.check


def hugepages(d, pages):
    """hugepages-2048kB (pages) and hugepages-1048576kB (none) under d."""
    for kb, n in (('2048', pages), ('1048576', 0)):
        hp = os.path.join(d, 'hugepages-%skB' % kb)
        os.makedirs(hp)
        for f in ('nr_hugepages', 'free_hugepages'):
            with open(os.path.join(hp, f), 'w') as fh:
                fh.write('%d\n' % n)


def tree(iommu=True, mounted=False, pages=64, nodes=()):
    """nodes: (cpulist, 2M pages) of node 0, 1, ...; none: no node directories."""
    root = tempfile.mkdtemp(prefix='tfo-sysfs.')
    sysfs, proc = os.path.join(root, 'sys'), os.path.join(root, 'proc')
    hugepages(os.path.join(sysfs, 'kernel/mm/hugepages'), pages)
    for i, (cpus, n) in enumerate(nodes):
        d = os.path.join(sysfs, 'devices/system/node/node%d' % i)
        hugepages(os.path.join(d, 'hugepages'), n)
        with open(os.path.join(d, 'cpulist'), 'w') as f:
            f.write(cpus + '\n')
    os.makedirs(os.path.join(sysfs, 'kernel/iommu_groups'))
    if iommu:
        os.makedirs(os.path.join(sysfs, 'kernel/iommu_groups/7'))
    os.makedirs(os.path.join(sysfs, 'module/vfio/parameters'))
    with open(os.path.join(sysfs, 'module/vfio/parameters/enable_unsafe_noiommu_mode'), 'w') as f:
        f.write('N\n')
    for drv in ('ixgbe', 'vfio-pci', 'virtio-pci', 'mlx5_core'):
        os.makedirs(os.path.join(sysfs, 'bus/pci/drivers', drv))
    for addr, drv, ifc, state in (('0000:01:00.0', 'ixgbe', 'enp1s0f0', 'down'),
                                  ('0000:02:00.0', 'virtio-pci', 'eth0', 'up'),
                                  ('0000:03:00.0', 'vfio-pci', None, None),
                                  ('0000:04:00.0', 'mlx5_core', 'enp4s0f0np0', 'up')):
        d = os.path.join(sysfs, 'bus/pci/devices', addr)
        os.makedirs(d)
        os.symlink(os.path.join('..', '..', 'drivers', drv), os.path.join(d, 'driver'))
        if ifc:
            os.makedirs(os.path.join(d, 'net', ifc))
            with open(os.path.join(d, 'net', ifc, 'operstate'), 'w') as f:
                f.write(state + '\n')
    os.makedirs(proc)
    with open(os.path.join(proc, 'mounts'), 'w') as f:
        f.write('sysfs /sys sysfs rw 0 0\n')
        if mounted:
            f.write('nodev /mnt/huge hugetlbfs rw,relatime,pagesize=2M 0 0\n')
    return root, sysfs, proc


def run(args, env_extra=None, **kw):
    root, sysfs, proc = tree(**kw)
    env = dict(os.environ, TFO_SYSFS=sysfs, TFO_PROC=proc, **(env_extra or {}))
    before = snapshot(root)
    r = subprocess.run(['bash', SCRIPT] + args, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=30)
    unchanged = snapshot(root) == before
    shutil.rmtree(root)
    return r.returncode, r.stdout.replace(sysfs, '/SYS'), unchanged


def snapshot(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(d, f)) as fh:
                out[os.path.join(d, f)] = fh.read()
    return out


def main():
    rc, out, same = run(['--dry-run', '--pages', '512', '--bind', '0000:01:00.0'])
    check('full dry run: exit 0, nothing changed', rc == 0 and same, (rc, out))
    for line in ('setup-host: dry run: nothing is changed',
                 '+ echo 512 > /SYS/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages',
                 '+ mkdir -p /dev/hugepages',
                 '+ mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages',
                 '+ modprobe vfio-pci',
                 '0000:01:00.0: ixgbe -> vfio-pci',
                 '+ dpdk-devbind.py -b vfio-pci 0000:01:00.0'):
        check('full dry run prints: %s' % line, line in out.splitlines(), out)
    check('full dry run: IOMMU present, no no-IOMMU mode', 'noiommu' not in out)

    rc, out, _ = run(['--dry-run', '--pages', '32'], mounted=True)
    check('enough hugepages and hugetlbfs mounted: nothing to do',
          rc == 0 and 'unchanged' in out and 'mounted at /mnt/huge' in out
          and '+ echo' not in out and '+ mount' not in out, out)
    check('no --bind: no module loaded', 'modprobe' not in out)

    rc, out, _ = run(['--dry-run', '--bind', '0000:01:00.0'], iommu=False)
    check('no IOMMU, no --no-iommu: refused (exit 1), says how to fix',
          rc == 1 and 'no IOMMU' in out and 'intel_iommu=on' in out, (rc, out))
    rc, out, same = run(['--dry-run', '--no-iommu', '--bind', '0000:01:00.0'], iommu=False)
    check('--no-iommu: unsafe mode switched on (printed, not done)',
          rc == 0 and same and
          '+ echo 1 > /SYS/module/vfio/parameters/enable_unsafe_noiommu_mode' in out, out)

    rc, out, _ = run(['--dry-run', '--bind', '0000:02:00.0'])
    check('a device whose interface is up is refused (exit 1)',
          rc == 1 and 'eth0, which is up' in out and 'dpdk-devbind' not in out, (rc, out))
    rc, out, _ = run(['--dry-run', '--force', '--bind', '0000:02:00.0'])
    check('... unless --force', rc == 0 and '+ dpdk-devbind.py -b vfio-pci 0000:02:00.0' in out,
          out)
    rc, out, _ = run(['--dry-run', '--bind', '0000:03:00.0'])
    check('already bound to vfio-pci: left alone',
          rc == 0 and 'already bound to vfio-pci' in out and 'dpdk-devbind' not in out, out)
    rc, out, _ = run(['--dry-run', '--bind', '0000:09:00.0'])
    check('no such device: exit 1', rc == 1 and 'no such PCI device' in out, (rc, out))
    rc, out, _ = run(['--dry-run', '--driver', 'uio_pci_generic', '--bind', '0000:01:00.0'],
                     iommu=False)
    check('--driver uio_pci_generic: no IOMMU needed',
          rc == 0 and '+ modprobe uio_pci_generic' in out and
          '+ dpdk-devbind.py -b uio_pci_generic 0000:01:00.0' in out, out)

    rc, out, _ = run(['--dry-run', '--page-size', '1G', '--pages', '4'])
    check('--page-size 1G: 1G pool, hugetlbfs for 1G, boot-time hint',
          rc == 0 and '+ echo 4 > /SYS/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages' in out
          and 'pagesize=1G nodev /dev/hugepages1G' in out and 'hugepagesz=1G' in out, out)
    conf = '/etc/sysctl.d/80-tfo-hugepages.conf'
    existed = os.path.exists(conf)
    rc, out, _ = run(['--dry-run', '--pages', '512', '--persist'])
    check('--persist: the sysctl.d file is printed, not written',
          rc == 0 and '+ echo vm.nr_hugepages = 512 > %s' % conf in out
          and os.path.exists(conf) == existed, out)

    for args, what in ((['--bind', '01:00.0'], 'short PCI address'),
                       (['--pages', 'many'], 'bad page count'),
                       (['--page-size', '4K'], 'bad page size'),
                       (['--driver', 'e1000'], 'bad driver'),
                       (['--frobnicate'], 'unknown option')):
        rc, out, same = run(['--dry-run'] + args)
        check('usage error (%s): exit 2, nothing changed' % what, rc == 2 and same, (rc, out))
    rc, out, _ = run(['--help'])
    check('--help: exit 0, describes --dry-run', rc == 0 and '--dry-run prints' in out, out[:300])
    check('--help: the header only', 'set -uo' not in out and 'SYSFS=' not in out, out[-300:])
    numa()
    bifurcated()
    config_plan()
    return T.done()


NODE = '/SYS/devices/system/node/node%d/hugepages/hugepages-%skB/nr_hugepages'
GLOBAL = '/SYS/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages'
# two nodes with CPUs and a memory-only one (CXL, a memory expander)
TWO = (('0-7', 0), ('8-15', 0), ('', 0))


def numa():
    """Per-node reservations on a two-socket host."""
    rc, out, same = run(['--dry-run', '--pages', '1025'], nodes=TWO)
    lines = out.splitlines()
    check('2 nodes: --pages split over the nodes with CPUs, the odd page to node 0',
          rc == 0 and same and '+ echo 513 > ' + NODE % (0, 2048) in lines
          and '+ echo 512 > ' + NODE % (1, 2048) in lines, out)
    check('2 nodes: nothing on the memory-only node, nor the global count',
          'node2' not in out and GLOBAL not in out, out)

    rc, out, _ = run(['--dry-run', '--pages', '1024'], nodes=(('0-7', 600), ('8-15', 100)))
    check('2 nodes: a node that has its share is left alone, the other raised',
          rc == 0 and 'hugepages: node 0: 600 x 2M reserved (>= 512): unchanged' in out
          and '+ echo 512 > ' + NODE % (1, 2048) in out.splitlines()
          and NODE % (0, 2048) not in out, out)

    rc, out, _ = run(['--dry-run', '--pages', '1024', '--nodes', '1'], nodes=TWO)
    check('--nodes 1 (the NIC\'s node): all pages there, none on node 0',
          rc == 0 and '+ echo 1024 > ' + NODE % (1, 2048) in out.splitlines()
          and NODE % (0, 2048) not in out, out)
    rc, out, same = run(['--dry-run', '--nodes', '5'], nodes=TWO)
    check('--nodes 5, no such node: exit 1, names it',
          rc == 1 and same and 'node 5: no 2M hugepages' in out, (rc, out))
    rc, out, same = run(['--dry-run', '--nodes', '0,x'], nodes=TWO)
    check('--nodes 0,x: usage error (exit 2)', rc == 2 and same, (rc, out))

    rc, out, _ = run(['--dry-run', '--pages', '512', '--persist'], nodes=TWO)
    check('--persist on 2 nodes: per node in tmpfiles.d (printed), no vm.nr_hugepages',
          rc == 0 and '/etc/tmpfiles.d/80-tfo-hugepages.conf' in out
          and 'w %s - - - - 256' % (NODE % (0, 2048)) in out
          and 'w %s - - - - 256' % (NODE % (1, 2048)) in out
          and 'vm.nr_hugepages' not in out, out)
    rc, out, _ = run(['--dry-run', '--page-size', '1G', '--pages', '4'], nodes=TWO)
    check('--page-size 1G on 2 nodes: 2 each, the boot hint per node',
          rc == 0 and '+ echo 2 > ' + NODE % (1, 1048576) in out.splitlines()
          and 'hugepages=0:2,1:2' in out, out)


def bifurcated():
    """mlx5 stays on its kernel driver; rdma-core is what it needs."""
    libs = tempfile.mkdtemp(prefix='tfo-libs.')
    try:
        rc, out, same = run(['--dry-run', '--bind', '0000:04:00.0'],
                            env_extra={'TFO_LIBDIRS': libs})
        check('mlx5 without rdma-core: exit 1, says what to install',
              rc == 1 and same and 'libibverbs1 ibverbs-providers' in out, (rc, out))
        open(os.path.join(libs, 'libibverbs.so.1'), 'w').close()
        rc, out, same = run(['--dry-run', '--bind', '0000:04:00.0'],
                            env_extra={'TFO_LIBDIRS': libs})
        check('mlx5 with libibverbs but no provider: exit 1, names libmlx5.so.1',
              rc == 1 and same and 'no libmlx5.so.1' in out, (rc, out))
        open(os.path.join(libs, 'libmlx5.so.1'), 'w').close()
        rc, out, same = run(['--dry-run', '--bind', '0000:04:00.0', '--bind', '0000:01:00.0'],
                            env_extra={'TFO_LIBDIRS': libs})
        check('mlx5 (its interface up): not bound, no refusal; the ixgbe one is',
              rc == 0 and same and '0000:04:00.0: on mlx5_core, a bifurcated driver: not bound' in out
              and '+ dpdk-devbind.py -b vfio-pci 0000:01:00.0' in out
              and '-b vfio-pci 0000:04:00.0' not in out, (rc, out))
        rc, out, _ = run(['--dry-run', '--bind', '0000:04:00.0'], iommu=False,
                         env_extra={'TFO_LIBDIRS': libs})
        check('mlx5 alone: no vfio-pci, no IOMMU needed',
              rc == 0 and 'modprobe' not in out and 'IOMMU' not in out, (rc, out))
    finally:
        shutil.rmtree(libs)


def config_plan():
    """--config: the pages tfo-server --print-config says, per node."""
    d = tempfile.mkdtemp(prefix='tfo-plan.')
    try:
        fake = os.path.join(d, 'tfo-server')
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\necho "[server]"\n'
                    'echo "; tfo-plan: hugepages-2M total=930 node0=600 node1=330 mib=1860"\n')
        os.chmod(fake, 0o755)
        rc, out, same = run(['--dry-run', '--config', 'x.ini', '--server', fake], nodes=TWO)
        check('--config: each node gets what the plan says',
              rc == 0 and same and '+ echo 600 > ' + NODE % (0, 2048) in out.splitlines()
              and '+ echo 330 > ' + NODE % (1, 2048) in out.splitlines(), out)
        rc, out, _ = run(['--dry-run', '--config', 'x.ini', '--server', fake, '--page-size', '1G'],
                         nodes=TWO)
        check('--config, 1G pages: whole gigabytes per node (2 and 1)',
              rc == 0 and '+ echo 2 > ' + NODE % (0, 1048576) in out.splitlines()
              and '+ echo 1 > ' + NODE % (1, 1048576) in out.splitlines(), out)
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\necho "tfo-server: config: [server] control_lcores = 16 needs '
                    'at least 17 lcores" >&2\nexit 1\n')
        rc, out, same = run(['--dry-run', '--config', 'x.ini', '--server', fake])
        check('--config refused by tfo-server: exit 1 with its reason',
              rc == 1 and same and 'control_lcores = 16' in out, (rc, out))
        rc, out, same = run(['--dry-run', '--config', 'x.ini', '--nodes', '1', '--server', fake])
        check('--config with --nodes: usage error', rc == 2 and same, (rc, out))
        if SERVER is None:
            return
        # the real binary on the shipped default configuration, no NUMA tree
        rc, out, _ = run(['--dry-run', '--config', os.path.join(CONFIG_DIR, 'tfo-server.ini'),
                          '--server', SERVER])
        plan = subprocess.run([SERVER, '--', '--config',
                               os.path.join(CONFIG_DIR, 'tfo-server.ini'), '--print-config'],
                              stdout=subprocess.PIPE, text=True, timeout=30).stdout
        total = [w for w in plan.split() if w.startswith('total=')]
        check('--config with tfo-server: the global count is its plan (%s)' % total,
              rc == 0 and total and '+ echo %s > %s' % (total[0][6:], GLOBAL) in out.splitlines(),
              (rc, out))
    finally:
        shutil.rmtree(d)


if __name__ == '__main__':
    sys.exit(main())
