// SPDX-License-Identifier: GPL-2.0
/*
 * devmemx bind: make or take a dma-buf, bind it to RX queues, print the
 * binding; then hold it until SIGINT/SIGTERM (the binding ends with our
 * socket), or with --persist leave it bound and exit. --dry-run asks the
 * kernel what each niov size would carve (BIND-CHECK) and binds nothing;
 * size auto picks from that answer.
 */
#include <ctype.h>
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
	bool size_auto;			/* size auto */
	uint64_t max_waste;		/* bytes, or millionths of the dma-buf */
	bool max_waste_set, max_waste_ppm;
	bool dry_run;
	uint8_t autorelease;
	bool autorelease_set;		/* else the kernel's default, xarray */
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

	a->size_auto = !strcmp(argv[0], "auto");
	a->size_set = !a->size_auto;
	if (a->size_auto)
		return 0;
	return dx_parse_buf_size(argv[0], "size", &a->size);
}

/* SIZE (bytes), or P% of the dma-buf (to a ten-thousandth of a percent). */
static int kw_max_waste(void *ctx, char **argv)
{
	struct bind_args *a = ctx;
	size_t len = strlen(argv[0]);
	double pct;
	char *end;

	a->max_waste_set = true;
	if (!len || argv[0][len - 1] != '%')
		return dx_parse_size(argv[0], "max-waste", &a->max_waste);
	pct = strtod(argv[0], &end);
	if (!isdigit((unsigned char)argv[0][0]) || end != argv[0] + len - 1 ||
	    !(pct >= 0 && pct <= 100))
		return dx_bad_usage("bad max-waste \"%s\": a size, or a percentage from 0%% to 100%%",
				    argv[0]);
	a->max_waste_ppm = true;
	a->max_waste = pct * 10000 + 0.5;
	return 0;
}

static int kw_autorelease(void *ctx, char **argv)
{
	struct bind_args *a = ctx;

	a->autorelease_set = true;
	return dx_parse_autorelease(argv[0], "autorelease", &a->autorelease);
}

static int kw_dry_run(void *ctx, char **argv)
{
	(void)argv;
	((struct bind_args *)ctx)->dry_run = true;
	return 0;
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
	if (a->dry_run && a->persist)
		return dx_bad_usage("--dry-run binds nothing: drop --persist");
	if (a->dry_run && a->size_set)
		return dx_bad_usage("--dry-run reports every size the driver takes: drop size (or say size auto)");
	if (a->max_waste_set && !a->size_auto)
		return dx_bad_usage("max-waste goes with size auto");
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
		{ "max-waste", 1, "SIZE|P%", kw_max_waste },
		{ "autorelease", 1, "0|1", kw_autorelease },
		{ "--dry-run", 0, NULL, kw_dry_run },
		{ "--udmabuf", 1, "SIZE", kw_udmabuf },
		{ "--hugetlb", 0, NULL, kw_hugetlb },
		{ "--dma-heap", 2, "NAME SIZE", kw_dma_heap },
		{ "--pid", 1, "PID", kw_pid },
		{ "--fd", 1, "FD", kw_fd },
		{ "--persist", 0, NULL, kw_persist },
	};
	int ret;

	ret = cli_parse_kw(&cli_cmd_bind, argc, argv, kw, ARRAY_SIZE(kw), a);
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
		.autorelease = a->autorelease,
		.has_autorelease = a->autorelease_set,
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

/* ---- the dry run and size auto ------------------------------------------ */

#define CHECK_MAX_SIZES	32

struct carve_row {
	uint64_t v[DEVMEMX_A_CARVE_MAX + 1];	/* by attribute */
};

struct check_reply {
	uint64_t dmabuf_size;
	struct carve_row rows[CHECK_MAX_SIZES];
	unsigned int n;
	bool json;		/* print the reply as JSON (-j --dry-run) */
};

static int take_check(const struct dx_reply *r, void *arg)
{
	struct nlattr *tb[DEVMEMX_A_CARVE_MAX + 1], *a;
	struct check_reply *c = arg;
	int rem, i;

	if (!r->tb[DEVMEMX_A_BINDING_DMABUF_SIZE])
		return -EPROTO;
	c->dmabuf_size = nla_get_u64(r->tb[DEVMEMX_A_BINDING_DMABUF_SIZE]);
	nla_for_each_attr(a, r->attrs, r->len, rem) {
		if (nla_type(a) != DEVMEMX_A_BINDING_CARVE)
			continue;
		if (c->n == CHECK_MAX_SIZES ||
		    nla_parse_nested(tb, DEVMEMX_A_CARVE_MAX, a, NULL) < 0)
			return -EPROTO;
		for (i = 1; i <= DEVMEMX_A_CARVE_MAX; i++) {
			if (!tb[i])
				return -EPROTO;
			c->rows[c->n].v[i] = nla_len(tb[i]) == 8 ?
					     nla_get_u64(tb[i]) :
					     nla_len(tb[i]) == 4 ?
					     nla_get_u32(tb[i]) :
					     nla_get_u8(tb[i]);
		}
		c->n++;
	}
	if (c->json)
		dx_print_flags(r, dx_binding_attrs, DEVMEMX_A_BINDING_MAX,
			       DX_PRINT_JSON | DX_PRINT_RAW);
	return 0;
}

static int check_rx(struct dx_nl *nl, const struct bind_args *a,
		    unsigned int ifindex, int fd, struct check_reply *c)
{
	struct dx_bind_req req = {
		.ifindex = ifindex,
		.fd = fd,
		.queues = a->queues,
		.nqueues = a->nqueues,
		.autorelease = a->autorelease,
		.has_autorelease = a->autorelease_set,
	};
	struct nl_msg *msg;
	char what[64];
	int ret;

	msg = dx_bind_check_msg(nl, &req);
	if (!msg)
		return -ENOMEM;
	snprintf(what, sizeof(what), "dry run of a bind to %s", a->dev);
	nl->hint = dx_perm_hint;
	nl->hint_arg = "a dry run";
	ret = dx_nl_call(nl, msg, DEVMEMX_A_BINDING_MAX, take_check, c, what);
	if (!ret && !c->n) {
		fprintf(stderr, "%s: %s: the kernel sent no sizes\n", dx_prog, what);
		return -EPROTO;
	}
	return ret;
}

static uint64_t max_waste(const struct bind_args *a, uint64_t dmabuf_size)
{
	if (!a->max_waste_set)
		return dmabuf_size / 100;	/* 1% */
	if (a->max_waste_ppm)
		return dmabuf_size / 1000000 * a->max_waste +
		       dmabuf_size % 1000000 * a->max_waste / 1000000;
	return a->max_waste;
}

/* size auto: the largest size whose metadata fits and that wastes little. */
static int pick_size(const struct bind_args *a, const struct check_reply *c,
		     unsigned int *row)
{
	uint64_t limit = max_waste(a, c->dmabuf_size);
	char lim[16], buf[16];
	unsigned int i;

	for (i = c->n; i--; ) {
		const uint64_t *v = c->rows[i].v;

		if (v[DEVMEMX_A_CARVE_NIOV_COUNT] &&
		    v[DEVMEMX_A_CARVE_METADATA_FITS] &&
		    v[DEVMEMX_A_CARVE_BYTES_WASTED] <= limit) {
			*row = i;
			return 0;
		}
	}
	dx_fmt_size(limit, lim, sizeof(lim));
	dx_fmt_size(c->dmabuf_size, buf, sizeof(buf));
	fprintf(stderr, "%s: size auto: no size %s takes carves niovs from the %s dma-buf with metadata that fits and at most %s wasted (see: devmemx bind ... --dry-run; raise max-waste)\n",
		dx_prog, a->dev, buf, lim);
	return -ERANGE;
}

static void print_check(const struct bind_args *a, const struct check_reply *c,
			int pick)
{
	char f[5][16];
	unsigned int i;

	dx_fmt_size(c->dmabuf_size, f[0], sizeof(f[0]));
	printf("dma-buf: %s, mapped for %s; nothing bound\n", f[0], a->dev);
	printf("%-6s %10s %8s %8s %9s %5s %s\n", "size", "niovs", "carved",
	       "wasted", "metadata", "fits", "in-tree-7.3");
	for (i = 0; i < c->n; i++) {
		const uint64_t *v = c->rows[i].v;

		dx_fmt_size(v[DEVMEMX_A_CARVE_NIOV_SIZE], f[0], sizeof(f[0]));
		dx_fmt_size(v[DEVMEMX_A_CARVE_BYTES_CARVED], f[1], sizeof(f[1]));
		dx_fmt_size(v[DEVMEMX_A_CARVE_BYTES_WASTED], f[2], sizeof(f[2]));
		dx_fmt_size(v[DEVMEMX_A_CARVE_METADATA_BYTES], f[3], sizeof(f[3]));
		printf("%-6s %10" PRIu64 " %8s %8s %9s %5s %s%s\n", f[0],
		       v[DEVMEMX_A_CARVE_NIOV_COUNT], f[1], f[2], f[3],
		       v[DEVMEMX_A_CARVE_METADATA_FITS] ? "yes" : "no",
		       v[DEVMEMX_A_CARVE_INTREE_ALIGNED] ? "aligned" : "refuses",
		       (int)i == pick ? "  <- size auto" : "");
	}
}

static void hold(const struct bind_args *a, uint32_t id,
		 const sigset_t *waitmask)
{
	fprintf(stderr, "%s: holding binding %" PRIu32 " on %s; press Ctrl-C to release it\n",
		dx_prog, id, a->dev);
	while (!bind_stop)
		sigsuspend(waitmask);
}

/* The dry run, the size it picks, the bind: as @a asks. */
static int bind_or_check(struct dx_nl *nl, struct bind_args *a,
			 unsigned int ifindex, int fd, struct bind_reply *b)
{
	struct check_reply c = { .json = cli_json && a->dry_run };
	char sz[16], lim[16], w[16];
	int ret, pick = -1;
	unsigned int row = 0;

	if (!a->dry_run && !a->size_auto)
		return bind_rx(nl, a, ifindex, fd, b);
	ret = check_rx(nl, a, ifindex, fd, &c);
	if (!ret && a->size_auto) {
		ret = pick_size(a, &c, &row);
		pick = ret ? -1 : (int)row;
	}
	if (a->dry_run) {
		if (!cli_json && c.n)
			print_check(a, &c, pick);
		return ret;
	}
	if (ret)
		return ret;
	a->size = c.rows[row].v[DEVMEMX_A_CARVE_NIOV_SIZE];
	a->size_set = true;
	dx_fmt_size(a->size, sz, sizeof(sz));
	dx_fmt_size(max_waste(a, c.dmabuf_size), lim, sizeof(lim));
	dx_fmt_size(c.rows[row].v[DEVMEMX_A_CARVE_BYTES_WASTED], w, sizeof(w));
	fprintf(stderr, "%s: size auto: %s, the largest size %s takes that wastes at most %s of the dma-buf (it wastes %s)\n",
		dx_prog, sz, a->dev, lim, w);
	return bind_rx(nl, a, ifindex, fd, b);
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

static int cli_bind(int argc, char **argv)
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
		ret = bind_or_check(&nl, &a, ifindex, fd, &b);
		if (!ret && !a.persist && !a.dry_run)
			hold(&a, b.id, &waitmask);
		dx_nl_close(&nl);
	}
	if (a.buf.kind == DX_DMABUF_NONE)
		close(fd);
	dx_dmabuf_destroy(&buf);
	return ret ? CLI_FAIL : CLI_OK;
}

const struct cli_cmd cli_cmd_bind = {
	.name = "bind",
	.synopsis =
	"bind dev IFNAME queues LIST [size SIZE | size auto [max-waste W]]\n"
	"                    (--udmabuf SIZE [--hugetlb] | --dma-heap NAME SIZE | --pid PID --fd FD)\n"
	"                    [autorelease 0|1] [--persist | --dry-run]",
	.help =
	"bind: bind a dma-buf to RX queues of IFNAME with buffers (niovs) of SIZE\n"
	"bytes and print the binding. Without --persist, devmemx then holds it until\n"
	"Ctrl-C (SIGINT) or SIGTERM: the binding ends when devmemx's socket closes.\n"
	"  dev IFNAME            the network device\n"
	"  queues LIST           RX queues to bind: 2, 2,3 or 2-5,8\n"
	"  size SIZE             niov size, a power of two from 4K (default: PAGE_SIZE)\n"
	"  size auto             the largest size the driver takes whose metadata fits\n"
	"                        and that wastes at most W of the dma-buf\n"
	"  max-waste W           for size auto: bytes (256K) or a share (0.5%; default 1%)\n"
	"  autorelease 0|1       how tokens come back: 0 the token array (refused while\n"
	"                        info says token-array: unavailable), 1 the\n"
	"                        socket's xarray (the kernel's default, as in-tree)\n"
	"  --udmabuf SIZE        a new dma-buf of SIZE bytes: a memfd via /dev/udmabuf\n"
	"  --hugetlb             back it with 2M huge pages (SIZE a multiple of 2M)\n"
	"  --dma-heap NAME SIZE  a new dma-buf from /dev/dma_heap/NAME instead\n"
	"  --pid PID --fd FD     the dma-buf process PID has open as FD (pidfd_getfd:\n"
	"                        needs ptrace access to PID)\n"
	"  --persist             print the binding and exit, leaving it bound; it ends\n"
	"                        on unbind or device removal (devmemx cannot be\n"
	"                        unloaded while a binding lives)\n"
	"  --dry-run             bind nothing: map the dma-buf for IFNAME as a bind\n"
	"                        would and print, for each size the driver takes, the\n"
	"                        niovs it would carve, the bytes it would waste, its\n"
	"                        metadata, whether that fits in memory now, and whether\n"
	"                        in-tree devmem (7.3) would take the mapping at that size\n",
	.run = cli_bind,
};
