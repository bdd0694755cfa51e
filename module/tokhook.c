// SPDX-License-Identifier: GPL-2.0
/*
 * The token array's gate (doc/token-array.md). Bindings may ask for
 * autorelease token-array only on a kernel whose token path was reviewed
 * (tokens-reviewed.h): its release and Debian version listed, and the
 * functions the hooks will redirect of the reviewed sizes. That is decided
 * once, at load; INFO reports it, and BIND-RX and BIND-CHECK refuse
 * autorelease token-array with its reason. The hooks themselves come in a
 * later increment: until then a reviewed kernel reports "ready" and still
 * refuses.
 *
 * tcp_recvmsg_dmabuf and sock_devmem_dontneed are private: their
 * addresses come from /proc/kallsyms through the loader, as
 * dmabuf_devmem_ops's do (dispatch.c), and are trusted only where the
 * kernel's symbol table agrees. tcp_v4_destroy_sock's is read from the
 * exported tcp_prot. Nothing found here is called.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/utsname.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "devmemx.h"
#include "tokens-reviewed.h"
#include "generated/netlink.h"

static unsigned long devmemx_tok_recvmsg;
module_param_named(tcp_recvmsg_dmabuf, devmemx_tok_recvmsg, ulong, 0400);
MODULE_PARM_DESC(tcp_recvmsg_dmabuf,
		 "address of tcp_recvmsg_dmabuf, from /proc/kallsyms (see modprobe.conf)");

static unsigned long devmemx_tok_dontneed;
module_param_named(sock_devmem_dontneed, devmemx_tok_dontneed, ulong, 0400);
MODULE_PARM_DESC(sock_devmem_dontneed,
		 "address of sock_devmem_dontneed, from /proc/kallsyms (see modprobe.conf)");

static char *devmemx_tok_release;
module_param_named(tokens_release, devmemx_tok_release, charp, 0400);
MODULE_PARM_DESC(tokens_release,
		 "for tests: look this release up in the token array's review, not the running kernel's (it can only make the token array unavailable)");

/*
 * What INFO reports. An unavailable one's why is kept to 45 characters
 * (a release name aside), so that the refusal quoting it fits in an
 * extack message (79); a longer one is not quoted.
 */
#define DEVMEMX_TOK_WHY_MAX \
	(NETLINK_MAX_FMTMSG_LEN - sizeof("autorelease 0: : use autorelease 1"))
static enum devmemx_token_array devmemx_tok_state;
static char devmemx_tok_why[NETLINK_MAX_FMTMSG_LEN];

static __printf(1, 2) void devmemx_tok_off(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(devmemx_tok_why, sizeof(devmemx_tok_why), fmt, ap);
	va_end(ap);
	devmemx_tok_state = DEVMEMX_TOKEN_ARRAY_UNAVAILABLE;
	pr_info("no token array: %s\n", devmemx_tok_why);
}

/* The Debian version in utsname()->version ("... Debian 7.2.12-1~bpo13+1 ..."). */
static bool devmemx_tok_debian(char *buf, size_t len)
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

/* @addr is @name's start, of the reviewed @size. */
static bool devmemx_tok_sym(unsigned long addr, const char *name,
			    unsigned long size)
{
	unsigned long got;

	if (!addr) {
		devmemx_tok_off("no %s= (modprobe gives it)", name);
		return false;
	}
	got = devmemx_sym_size(addr, name);
	if (!got) {
		pr_info("%s=0x%lx is not the address of %s\n", name, addr, name);
		devmemx_tok_off("%s: wrong address", name);
		return false;
	}
	if (got != size) {
		devmemx_tok_off("%s: 0x%lx bytes, not 0x%lx", name, got, size);
		return false;
	}
	return true;
}

/*
 * Socket destroy: IPv4's and IPv6's TCP both run tcp_v4_destroy_sock
 * (7.2 net/ipv4/tcp_ipv4.c:3358, net/ipv6/tcp_ipv6.c:2287), so one hook
 * drains both. The protos are exported data: compared, nothing called.
 */
static bool devmemx_tok_destroy(unsigned long size)
{
	unsigned long destroy = (unsigned long)READ_ONCE(tcp_prot.destroy);

	if (!devmemx_sym_size(destroy, "tcp_v4_destroy_sock")) {
		devmemx_tok_off("tcp_prot.destroy is not tcp_v4_destroy_sock");
		return false;
	}
#if IS_BUILTIN(CONFIG_IPV6)
	if ((unsigned long)READ_ONCE(tcpv6_prot.destroy) != destroy) {
		devmemx_tok_off("tcpv6_prot.destroy is not tcp_prot's");
		return false;
	}
#elif IS_MODULE(CONFIG_IPV6)
	devmemx_tok_off("IPv6 is a module on this kernel");
	return false;
#endif
	return devmemx_tok_sym(destroy, "tcp_v4_destroy_sock", size);
}

/* This kernel's entry in the review; NULL (and why) when it has none. */
static const struct devmemx_tok_reviewed *devmemx_tok_entry(void)
{
	const char *release = init_utsname()->release;
	char debian[32];
	unsigned int i;

	if (devmemx_tok_release && *devmemx_tok_release) {
		pr_info("token array: reviewed as release %s (tokens_release)\n",
			devmemx_tok_release);
		release = devmemx_tok_release;
	}
	for (i = 0; i < ARRAY_SIZE(devmemx_tok_reviewed); i++)
		if (!strcmp(devmemx_tok_reviewed[i].release, release))
			break;
	if (i == ARRAY_SIZE(devmemx_tok_reviewed)) {
		devmemx_tok_off("not reviewed for %s", release);
		return NULL;
	}
	if (!devmemx_tok_debian(debian, sizeof(debian))) {
		devmemx_tok_off("no Debian version in uname -v");
		return NULL;
	}
	if (strcmp(devmemx_tok_reviewed[i].debian, debian)) {
		devmemx_tok_off("not reviewed for Debian %s", debian);
		return NULL;
	}
	return &devmemx_tok_reviewed[i];
}

void devmemx_tokhook_init(void)
{
	const struct devmemx_tok_reviewed *r = devmemx_tok_entry();

	if (!r ||
	    !devmemx_tok_sym(devmemx_tok_recvmsg, "tcp_recvmsg_dmabuf",
			     r->recvmsg_size) ||
	    !devmemx_tok_sym(devmemx_tok_dontneed, "sock_devmem_dontneed",
			     r->dontneed_size) ||
	    !devmemx_tok_destroy(r->destroy_size))
		return;
	/*
	 * Flavours built from one source (-amd64, -cloud-amd64) share the
	 * Debian version: a release named by tokens_release may pass the
	 * checks on a kernel nobody reviewed.
	 */
	if (devmemx_tok_release && *devmemx_tok_release &&
	    strcmp(devmemx_tok_release, init_utsname()->release)) {
		devmemx_tok_off("tokens_release is not this kernel's");
		return;
	}
	devmemx_tok_state = DEVMEMX_TOKEN_ARRAY_READY;
	snprintf(devmemx_tok_why, sizeof(devmemx_tok_why),
		 "reviewed for %s; no hooks in this build", r->release);
}

u32 devmemx_tokhook_state(const char **why)
{
	*why = devmemx_tok_why;
	return devmemx_tok_state;
}

/*
 * BIND-RX's and BIND-CHECK's autorelease @attr (absent: xarray): 0, or
 * -EOPNOTSUPP with the reason for token-array, before anything is made.
 */
int devmemx_tokhook_check_bind(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (nla_get_u8_default(attr, DEVMEMX_AUTORELEASE_XARRAY) !=
	    DEVMEMX_AUTORELEASE_TOKEN_ARRAY)
		return 0;
	NL_SET_BAD_ATTR(extack, attr);
	if (devmemx_tok_state == DEVMEMX_TOKEN_ARRAY_READY)
		NL_SET_ERR_MSG(extack,
			       "autorelease 0: the token array is not in this build yet");
	else if (strlen(devmemx_tok_why) <= DEVMEMX_TOK_WHY_MAX)
		NL_SET_ERR_MSG_FMT(extack, "autorelease 0: %s: use autorelease 1",
				   devmemx_tok_why);
	else	/* a long release name: the message would be cut */
		NL_SET_ERR_MSG(extack,
			       "autorelease 0: no token array here (see devmemx info): use autorelease 1");
	return -EOPNOTSUPP;
}
