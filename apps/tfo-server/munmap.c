/* SPDX-License-Identifier: BSD-3-Clause
 * tfo-server: munmap, interposed, so that no PMD unmaps memory a polling
 * lcore may be reading (src/lcore/qs.h says why and how).
 *
 * The executable exports this definition (apps/meson.build:
 * --export-dynamic-symbol=munmap), so the shared libraries' calls through
 * their PLT bind here before libc's: DPDK 22.11's net_memif unmaps a
 * departed peer's regions from its disconnect, on the EAL interrupt thread,
 * while an lcore may be inside eth_memif_rx/tx on them. glibc's own unmaps
 * (malloc, ld.so) call the system call directly and never come here.
 *
 * On a thread that is not a polling lcore, once the lcores have started:
 * wait until each of them is between bursts, then unmap; an lcore stuck
 * for TFO_QS_WAIT_MAX_MS: leave the memory mapped (a leak, counted
 * unmap_kept) rather than unmap it under the lcore (a fault). Everywhere
 * else (before the lcores start, on an lcore, after they stop): the system
 * call at once.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lcore/qs.h"

int
munmap(void *addr, size_t len)
{
	if (tfo_qs_wait() < 0)
		return 0;
	/* libc's munmap is this system call; syscall() sets errno */
	return (int)syscall(SYS_munmap, addr, len);
}
