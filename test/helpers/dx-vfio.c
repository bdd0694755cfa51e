// SPDX-License-Identifier: GPL-2.0
/*
 * dx-vfio BDF SIZE: the first SIZE bytes of BAR 2 of PCI function BDF,
 * exported by vfio-pci as a dma-buf and held as an application holds its
 * device memory. Prints "pid P fd F", then waits until its standard input
 * closes; its exit closes the vfio device, which revokes the dma-buf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dmabuf.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct dx_dmabuf b = DX_DMABUF_INIT;
	char c;

	dx_prog = "dx-vfio";
	if (argc != 3) {
		fprintf(stderr, "usage: dx-vfio BDF SIZE-IN-BYTES\n");
		return 2;
	}
	b.size = strtoull(argv[2], NULL, 0);
	if (dx_vfio_create(&b, argv[1]))
		return 1;
	printf("pid %d fd %d\n", getpid(), b.fd);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	dx_dmabuf_destroy(&b);
	return 0;
}
