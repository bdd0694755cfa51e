// SPDX-License-Identifier: GPL-2.0
/*
 * The gate (doc/review.md): whether devmemx may redirect or hook a kernel
 * function here. A function devmemx replaces is its to keep only on a
 * kernel whose review passed: the function's source (and what devmemx's
 * body mirrors of it) the same text as reviewed, its binary checked, both
 * by devmemx-review. Such a kernel has an entry: its release, its Debian
 * version and the size the symbol table gives each function that passed.
 * Entries come from review=, the entry devmemx-review wrote on this host
 * for this very build, which the loader passes, and then from reviewed.h
 * (the kernels the project reviewed, and a test build's own).
 *
 * A function is allowed when this kernel's entry gives it a size, its
 * prototype is what devmemx's body takes (BTF, at build: probe.sh), its
 * address (the loader's, or tcp_prot's) is that symbol's start in the
 * kernel's own table, and the symbol has the entry's size. Nothing found
 * here is called: the hooks give the addresses to ftrace. Every refusal
 * of the token array and of policies is decided here, once, at load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/utsname.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "compat.h"
#include "reviewed.h"

static unsigned long devmemx_gate_param[DEVMEMX_GATE_NFN];
module_param_named(tcp_recvmsg_dmabuf, devmemx_gate_param[DEVMEMX_GATE_RECVMSG],
		   ulong, 0400);
MODULE_PARM_DESC(tcp_recvmsg_dmabuf,
		 "address of tcp_recvmsg_dmabuf, from /proc/kallsyms (see modprobe.conf)");
module_param_named(sock_devmem_dontneed,
		   devmemx_gate_param[DEVMEMX_GATE_DONTNEED], ulong, 0400);
MODULE_PARM_DESC(sock_devmem_dontneed,
		 "address of sock_devmem_dontneed, from /proc/kallsyms (see modprobe.conf)");
module_param_named(netdev_nl_bind_rx_doit,
		   devmemx_gate_param[DEVMEMX_GATE_BIND_RX], ulong, 0400);
MODULE_PARM_DESC(netdev_nl_bind_rx_doit,
		 "address of netdev_nl_bind_rx_doit, from /proc/kallsyms (see modprobe.conf)");

static char *devmemx_gate_review;
module_param_named(review, devmemx_gate_review, charp, 0400);
MODULE_PARM_DESC(review,
		 "this host's review entry, RELEASE,DEBIAN[,FUNCTION:SIZE...] (the loader reads it from /var/lib/devmemx/review/RELEASE)");

static char *devmemx_gate_as;
module_param_named(review_release, devmemx_gate_as, charp, 0400);
MODULE_PARM_DESC(review_release,
		 "for tests: look this release up in the reviews, not the running kernel's (it can only make features unavailable)");

static const char * const devmemx_gate_names[DEVMEMX_GATE_NFN] = {
	[DEVMEMX_GATE_RECVMSG] = "tcp_recvmsg_dmabuf",
	[DEVMEMX_GATE_DONTNEED] = "sock_devmem_dontneed",
	[DEVMEMX_GATE_DESTROY] = "tcp_v4_destroy_sock",
	[DEVMEMX_GATE_BIND_RX] = "netdev_nl_bind_rx_doit",
};

/* The prototypes, as probe.sh found them in BTF: "" when they match. */
static const char * const devmemx_gate_proto_why[DEVMEMX_GATE_NFN] = {
	[DEVMEMX_GATE_RECVMSG] = DEVMEMX_BTF_TOK_WHY,
	[DEVMEMX_GATE_DONTNEED] = DEVMEMX_BTF_TOK_WHY,
	[DEVMEMX_GATE_DESTROY] = DEVMEMX_BTF_TOK_WHY,
	[DEVMEMX_GATE_BIND_RX] = DEVMEMX_BTF_POL_WHY,
};

static struct devmemx_gate_entry devmemx_gate_host;	/* review='s */
static char devmemx_gate_host_buf[256];			/* its strings */
static const struct devmemx_gate_entry *devmemx_gate_entry;
static char devmemx_gate_why[NETLINK_MAX_FMTMSG_LEN];	/* when none */
static bool devmemx_gate_borrowed;	/* review_release named another */

static __printf(1, 2) void devmemx_gate_none(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(devmemx_gate_why, sizeof(devmemx_gate_why), fmt, ap);
	va_end(ap);
	devmemx_gate_entry = NULL;
}

/*
 * The size the kernel's symbol table gives @name, when @addr is its start
 * in the kernel proper (not a module), else 0. From sprint_symbol()
 * ("name+0x0/0xSIZE"): kallsyms_lookup_size_offset() is not exported.
 * Nothing at @addr is read.
 */
unsigned long devmemx_sym_size(unsigned long addr, const char *name)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);
	unsigned long size;

	if (!addr)
		return 0;
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, n) || strncmp(buf + n, "+0x0/0x", 7) ||
	    strchr(buf, '[') || kstrtoul(buf + n + 7, 16, &size))
		return 0;
	return size;
}

/*
 * The Debian version in utsname()->version ("... Debian 7.2.12-1~bpo13+1
 * (date)"): an ABI name can stay the same across Debian revisions whose
 * code differs, so an entry names both.
 */
static bool devmemx_gate_debian(char *buf, size_t len)
{
	const char *v = strstr(init_utsname()->version, " Debian ");
	size_t n;

	if (!v)
		return false;
	v += strlen(" Debian ");
	n = strcspn(v, " ");
	if (!n || n >= len)
		return false;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return true;
}

/*
 * review=RELEASE,DEBIAN[,FUNCTION:SIZE...] into devmemx_gate_host; false,
 * with a log line, when it does not parse. A function it does not list
 * is one whose review did not pass there (none: every feature failed).
 */
static bool devmemx_gate_parse(void)
{
	char *s = devmemx_gate_host_buf, *field, *size;
	struct devmemx_gate_entry *e = &devmemx_gate_host;
	unsigned int i;

	if (strscpy(devmemx_gate_host_buf, devmemx_gate_review,
		    sizeof(devmemx_gate_host_buf)) < 0)
		goto bad;
	e->release = strsep(&s, ",");
	e->debian = strsep(&s, ",");
	if (!*e->release || !e->debian || !*e->debian)
		goto bad;
	while ((field = strsep(&s, ","))) {
		size = strchr(field, ':');
		if (!size)
			goto bad;
		*size++ = '\0';
		for (i = 0; i < DEVMEMX_GATE_NFN; i++)
			if (!strcmp(field, devmemx_gate_names[i]))
				break;
		if (i == DEVMEMX_GATE_NFN || e->size[i] ||
		    kstrtoul(size, 0, &e->size[i]) || !e->size[i])
			goto bad;
	}
	return true;
bad:
	pr_err("review=%s: not RELEASE,DEBIAN[,FUNCTION:SIZE...] of known functions: ignored\n",
	       devmemx_gate_review);
	memset(e, 0, sizeof(*e));
	return false;
}

/*
 * Whether @e, an entry for the release looked up, names this very build:
 * a test entry by its whole uname -v, any other by the Debian version in
 * it. If not, says why.
 */
static bool devmemx_gate_same_build(const struct devmemx_gate_entry *e,
				    const char *release)
{
	char debian[32];

	if (e->build) {
		if (!strcmp(e->build, init_utsname()->version))
			return true;
		devmemx_gate_none("not the build of %s reviewed", release);
		return false;
	}
	if (!devmemx_gate_debian(debian, sizeof(debian))) {
		devmemx_gate_none("no Debian version in uname -v");
		return false;
	}
	if (!strcmp(e->debian, debian))
		return true;
	devmemx_gate_none("not reviewed for Debian %s: run devmemx-review", debian);
	return false;
}

/*
 * Pick this kernel's entry, or say why it has none. This host's review
 * comes first: the loader passes it only for the very build it read (its
 * build id), and where it failed, its failure stands. Then the built-in
 * entries.
 */
void devmemx_gate_init(void)
{
	const char *release = init_utsname()->release;
	const struct devmemx_gate_entry *e = NULL;
	bool host = false;
	unsigned int i;

	devmemx_gate_none("no review of this kernel: run devmemx-review");
	if (devmemx_gate_review && *devmemx_gate_review)
		host = devmemx_gate_parse();
	if (devmemx_gate_as && *devmemx_gate_as) {
		pr_info("review: looking up release %s (review_release)\n",
			devmemx_gate_as);
		release = devmemx_gate_as;
	}
	if (host && !strcmp(devmemx_gate_host.release, release) &&
	    devmemx_gate_same_build(&devmemx_gate_host, release))
		e = &devmemx_gate_host;
	for (i = 0; !e && i < ARRAY_SIZE(devmemx_gate_reviewed); i++)
		if (!strcmp(devmemx_gate_reviewed[i].release, release) &&
		    devmemx_gate_same_build(&devmemx_gate_reviewed[i], release))
			e = &devmemx_gate_reviewed[i];
	if (!e)
		return;
	if (e->build)
		pr_info("review: the test entry of this build (%s)\n", e->build);
	else
		pr_info("review: %s entry for %s (Debian %s)\n",
			e == &devmemx_gate_host ? "devmemx-review's" :
						  "the built-in",
			e->release, e->debian);
	devmemx_gate_entry = e;
	devmemx_gate_borrowed = strcmp(release, init_utsname()->release);
}

/*
 * tcp_v4_destroy_sock's address: not exported, so read from the exported
 * tcp_prot, which IPv6's TCP shares (7.2 net/ipv4/tcp_ipv4.c:3358,
 * net/ipv6/tcp_ipv6.c:2287). Compared, nothing called.
 */
static unsigned long devmemx_gate_destroy(char *why, size_t len)
{
	unsigned long destroy = (unsigned long)READ_ONCE(tcp_prot.destroy);

	if (!devmemx_sym_size(destroy, "tcp_v4_destroy_sock")) {
		strscpy(why, "tcp_prot.destroy is not tcp_v4_destroy_sock", len);
		return 0;
	}
#if IS_BUILTIN(CONFIG_IPV6)
	if ((unsigned long)READ_ONCE(tcpv6_prot.destroy) != destroy) {
		strscpy(why, "tcpv6_prot.destroy is not tcp_prot's", len);
		return 0;
	}
#elif IS_MODULE(CONFIG_IPV6)
	strscpy(why, "IPv6 is a module on this kernel", len);
	return 0;
#endif
	return destroy;
}

/*
 * @fn's address on this kernel, where its review passed and every check
 * above holds; else 0, and why in @why. The whys are kept short, most to
 * 45 characters or less, so that a refusal can quote them in an extack.
 */
unsigned long devmemx_gate_addr(enum devmemx_gate_fn fn, char *why,
				size_t len)
{
	const char *name = devmemx_gate_names[fn];
	unsigned long addr, want, got;

	if (!devmemx_gate_entry) {
		strscpy(why, devmemx_gate_why, len);
		return 0;
	}
	want = devmemx_gate_entry->size[fn];
	if (!want) {
		snprintf(why, len, "%s: its review failed", name);
		return 0;
	}
	if (*devmemx_gate_proto_why[fn]) {
		strscpy(why, devmemx_gate_proto_why[fn], len);
		return 0;
	}
	if (fn == DEVMEMX_GATE_DESTROY) {
		addr = devmemx_gate_destroy(why, len);
		if (!addr)
			return 0;
	} else {
		addr = devmemx_gate_param[fn];
		if (!addr) {
			snprintf(why, len, "no %s= (modprobe gives it)", name);
			return 0;
		}
	}
	got = devmemx_sym_size(addr, name);
	if (!got) {
		pr_info("%s=0x%lx is not the address of %s\n", name, addr, name);
		snprintf(why, len, "%s: wrong address", name);
		return 0;
	}
	if (got != want) {
		snprintf(why, len, "%s: 0x%lx bytes, not 0x%lx", name, got, want);
		return 0;
	}
	/*
	 * Flavours built from one source (-amd64, -cloud-amd64) share the
	 * Debian version, and their sizes may agree: a borrowed name passes
	 * every check above, and must still never make a kernel ready.
	 */
	if (devmemx_gate_borrowed) {
		strscpy(why, "review_release is not this kernel's", len);
		return 0;
	}
	return addr;
}

/* The release whose entry allowed what was allowed. */
const char *devmemx_gate_release(void)
{
	return devmemx_gate_entry ? devmemx_gate_entry->release : "";
}
