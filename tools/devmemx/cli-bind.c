// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx bind: make or take a dma-buf, bind it to RX queues, print the
 * binding; then hold it until SIGINT/SIGTERM (the binding ends with our
 * socket), or with --persist leave it bound and exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "dmabuf.h"
#include "family.h"
#include "generated/devmemx-names.h"

struct bind_args {
	const char *dev;
	uint32_t queues[DX_MAX_QUEUES];
	unsigned int nqueues;
	uint32_t size;
	bool size_set;			/* else the kernel's default */
	struct dx_dmabuf_spec buf;	/* --udmabuf, --dma-heap */
	unsigned int made;		/* --udmabuf and --dma-heap given */
	int pid, fd;			/* --pid, --fd: -1 when not given */
	bool persist;
};

/* ---- the command line ---------------------------------------------------- */

static int kw_dev(void *ctx, char **argv)
{
	((struct bind_args *)ctx)->dev = argv[0];
	return 0;
}

static int kw_queues(void *ctx, char **argv)
{
	struct bind_args *a = ctx;

	return dx_parse_queues(argv[0], "queues", a->queues, DX_MAX_QUEUES,
			       &a->nqueues);
}

static int kw_size(void *ctx, char **argv)
{
	struct bind_args *a = ctx;

	a->size_set = true;
	return dx_parse_buf_size(argv[0], "size", &a->size);
}

static int kw_udmabuf(void *ctx, char **argv)
{
	struct bind_args *a = ctx;

	a->buf.kind = DX_UDMABUF;
	a->made++;
	return dx_parse_size(argv[0], "--udmabuf", &a->buf.size);
}

static int kw_hugetlb(void *ctx, char **argv)
{
	(void)argv;
	((struct bind_args *)ctx)->buf.hugetlb = true;
	return 0;
}

static int kw_dma_heap(void *ctx, char **argv)
{
	struct bind_args *a = ctx;

	a->buf.kind = DX_DMA_HEAP;
	a->buf.heap = argv[0];
	a->made++;
	return dx_parse_size(argv[1], "--dma-heap", &a->buf.size);
}

static int kw_pid(void *ctx, char **argv)
{
	struct bind_args *a = ctx;
	uint64_t v;

	if (dx_parse_uint(argv[0], "--pid", 1, INT32_MAX, &v))
		return -EINVAL;
	a->pid = v;
	return 0;
}

static int kw_fd(void *ctx, char **argv)
{
	struct bind_args *a = ctx;
	uint64_t v;

	if (dx_parse_uint(argv[0], "--fd", 0, INT32_MAX, &v))
		return -EINVAL;
	a->fd = v;
	return 0;
}

static int kw_persist(void *ctx, char **argv)
{
	(void)argv;
	((struct bind_args *)ctx)->persist = true;
	return 0;
}

static int bind_check(const struct bind_args *a)
{
	unsigned int sources = a->made + (a->pid >= 0 || a->fd >= 0);

	if (!a->dev)
		return dx_bad_usage("bind needs dev IFNAME");
	if (!a->nqueues)
		return dx_bad_usage("bind needs queues LIST (e.g. queues 2)");
	if (!sources)
		return dx_bad_usage("bind needs a dma-buf: --udmabuf SIZE, --dma-heap NAME SIZE or --pid PID --fd FD");
	if (sources > 1)
		return dx_bad_usage("bind takes one dma-buf: --udmabuf SIZE, --dma-heap NAME SIZE or --pid PID --fd FD");
	if (a->buf.kind != DX_DMABUF_NONE)
		return dx_dmabuf_check(&a->buf);
	if (a->pid < 0)
		return dx_bad_usage("--fd FD needs --pid PID");
	if (a->fd < 0)
		return dx_bad_usage("--pid PID needs --fd FD");
	if (a->buf.hugetlb)
		return dx_bad_usage("--hugetlb goes with --udmabuf, not --pid");
	return 0;
}

static int bind_parse(int argc, char **argv, struct bind_args *a)
{
	static const struct cli_kw kw[] = {
		{ "dev", 1, "IFNAME", kw_dev },
		{ "queues", 1, "LIST", kw_queues },
		{ "size", 1, "SIZE", kw_size },
		{ "--udmabuf", 1, "SIZE", kw_udmabuf },
		{ "--hugetlb", 0, NULL, kw_hugetlb },
		{ "--dma-heap", 2, "NAME SIZE", kw_dma_heap },
		{ "--pid", 1, "PID", kw_pid },
		{ "--fd", 1, "FD", kw_fd },
		{ "--persist", 0, NULL, kw_persist },
	};
	int ret;

	ret = cli_parse_kw(argc, argv, kw, ARRAY_SIZE(kw), a);
	if (ret)
		return ret;
	return bind_check(a) ? CLI_USAGE : 0;
}

/* ---- bind and hold ------------------------------------------------------- */

static volatile sig_atomic_t bind_stop;

static void on_stop(int sig)
{
	bind_stop = sig;
}

/*
 * SIGINT and SIGTERM are blocked until the binding is held, so one that
 * comes early ends the hold at once instead of killing us mid-request.
 */
static void bind_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct bind_reply {
	uint32_t id;
	bool got_id;
};

static int print_bind(const struct dx_reply *r, void *arg)
{
	struct bind_reply *b = arg;

	if (!r->tb[DEVMEMX_A_BINDING_ID])
		return -EPROTO;
	b->id = nla_get_u32(r->tb[DEVMEMX_A_BINDING_ID]);
	b->got_id = true;
	dx_print(r, dx_binding_attrs, DEVMEMX_A_BINDING_MAX, cli_json);
	fflush(stdout);
	return 0;
}

static int bind_rx(struct dx_nl *nl, const struct bind_args *a,
		   unsigned int ifindex, int fd, struct bind_reply *b)
{
	struct dx_bind_req req = {
		.ifindex = ifindex,
		.fd = fd,
		.queues = a->queues,
		.nqueues = a->nqueues,
		.rx_buf_size = a->size,
		.has_rx_buf_size = a->size_set,
		.flags = a->persist ? DEVMEMX_BINDING_FLAGS_PERSISTENT : 0,
	};
	struct nl_msg *msg;
	char what[64];
	int ret;

	msg = dx_bind_rx_msg(nl, &req);
	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "bind to %s", a->dev);
	nl->hint = dx_perm_hint;
	nl->hint_arg = "binding";
	ret = dx_nl_call(nl, msg, DEVMEMX_A_BINDING_MAX, print_bind, b, what);
	if (!ret && !b->got_id) {
		fprintf(stderr, "%s: %s: the kernel sent no binding\n", dx_prog,
			what);
		return -EPROTO;
	}
	return ret;
}

static void hold(const struct bind_args *a, uint32_t id,
		 const sigset_t *waitmask)
{
	fprintf(stderr, "%s: holding binding %" PRIu32 " on %s; press Ctrl-C to release it\n",
		dx_prog, id, a->dev);
	while (!bind_stop)
		sigsuspend(waitmask);
}

/* The dma-buf to bind: made here (@buf) or taken from another process. */
static int bind_fd(const struct bind_args *a, struct dx_dmabuf *buf)
{
	if (a->buf.kind == DX_DMABUF_NONE)
		return dx_dmabuf_take(a->pid, a->fd);
	if (dx_dmabuf_create(buf, &a->buf))
		return -1;
	return buf->fd;
}

int cli_bind(int argc, char **argv)
{
	struct bind_args a = { .pid = -1, .fd = -1 };
	struct dx_dmabuf buf = DX_DMABUF_INIT;
	struct bind_reply b = { 0 };
	unsigned int ifindex;
	sigset_t waitmask;
	struct dx_nl nl;
	int ret, fd;

	ret = bind_parse(argc, argv, &a);
	if (ret)
		return ret < 0 ? CLI_OK : ret;
	ifindex = cli_ifindex(a.dev);
	if (!ifindex)
		return CLI_FAIL;
	bind_signals(&waitmask);
	fd = bind_fd(&a, &buf);
	if (fd < 0)
		return CLI_FAIL;
	ret = cli_open(&nl);
	if (!ret) {
		ret = bind_rx(&nl, &a, ifindex, fd, &b);
		if (!ret && !a.persist)
			hold(&a, b.id, &waitmask);
		dx_nl_close(&nl);
	}
	if (a.buf.kind == DX_DMABUF_NONE)
		close(fd);
	dx_dmabuf_destroy(&buf);
	return ret ? CLI_FAIL : CLI_OK;
}
