// SPDX-License-Identifier: GPL-2.0
/*
 * The token array's gate and hooks (doc/token-array.md). Bindings may ask
 * for autorelease token-array only on a kernel whose token path was
 * reviewed (tokens-reviewed.h): its release and Debian version listed,
 * the functions the hooks redirect of the reviewed sizes and, at build,
 * of the prototypes devmemx's bodies take. That is decided once, at load;
 * INFO reports it, and BIND-RX and BIND-CHECK refuse autorelease
 * token-array elsewhere, with its reason.
 *
 * tcp_recvmsg_dmabuf and sock_devmem_dontneed are private: their
 * addresses come from /proc/kallsyms through the loader, as
 * dmabuf_devmem_ops's do (dispatch.c), and are trusted only where the
 * kernel's symbol table agrees. tcp_v4_destroy_sock's is read from the
 * exported tcp_prot. Nothing found here is called: ftrace is given the
 * addresses, and redirects the two private functions to tokens.c's for
 * token-array sockets only, and runs tokens.c's close before the destroy.
 * The hooks are there from the first token-array bind until no such
 * binding and no socket of one is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/utsname.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "devmemx.h"
#include "tokens-reviewed.h"
#include "generated/netlink.h"

static unsigned long devmemx_tok_recvmsg_addr;
module_param_named(tcp_recvmsg_dmabuf, devmemx_tok_recvmsg_addr, ulong, 0400);
MODULE_PARM_DESC(tcp_recvmsg_dmabuf,
		 "address of tcp_recvmsg_dmabuf, from /proc/kallsyms (see modprobe.conf)");

static unsigned long devmemx_tok_dontneed_addr;
module_param_named(sock_devmem_dontneed, devmemx_tok_dontneed_addr, ulong, 0400);
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
	if (devmemx_tok_reviewed[i].build) {
		if (strcmp(devmemx_tok_reviewed[i].build, init_utsname()->version)) {
			devmemx_tok_off("not the build of %s reviewed", release);
			return NULL;
		}
		pr_info("token array: the test entry of this build (%s)\n",
			init_utsname()->version);
		return &devmemx_tok_reviewed[i];
	}
	if (!devmemx_debian_version(debian, sizeof(debian))) {
		devmemx_tok_off("no Debian version in uname -v");
		return NULL;
	}
	if (strcmp(devmemx_tok_reviewed[i].debian, debian)) {
		devmemx_tok_off("not reviewed for Debian %s", debian);
		return NULL;
	}
	return &devmemx_tok_reviewed[i];
}

/*
 * The hooks: the two private functions redirected to tokens.c's bodies for
 * token-array sockets (and skbs of token-array bindings), tokens.c's close
 * run before the destroy of a socket that has an array.
 */
struct devmemx_tok_hook {
	const char *name;
	unsigned long target;
	struct ftrace_ops ops;
};

static DEFINE_MUTEX(devmemx_tok_lock);
static bool devmemx_tok_hooked;
static atomic_t devmemx_tok_users;	/* token-array bindings */
static void devmemx_tok_work_fn(struct work_struct *w);
static DECLARE_WORK(devmemx_tok_work, devmemx_tok_work_fn);

/* Maybe nothing needs the hooks any more; any context. */
static void notrace devmemx_tokhook_idle(void)
{
	queue_work(devmemx_wq, &devmemx_tok_work);
}

static bool notrace devmemx_tok_marked(struct sock *sk)
{
	return xa_marked(&sk->sk_user_frags, DEVMEMX_TOK_MARK);
}

/* The first fragment of @skb or of its first frag_list skb. */
static bool notrace devmemx_tok_skb(const struct sk_buff *skb)
{
	if (!skb_shinfo(skb)->nr_frags)
		skb = skb_shinfo(skb)->frag_list;
	if (!skb || !skb_shinfo(skb)->nr_frags)
		return false;
	return devmemx_tok_binding(skb_frag_netmem(&skb_shinfo(skb)->frags[0]));
}

static void notrace devmemx_tok_recv_thunk(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	struct sock *sk = (void *)ftrace_regs_get_argument(fregs, 0);
	const struct sk_buff *skb = (void *)ftrace_regs_get_argument(fregs, 1);

	if (devmemx_tok_marked(sk) || devmemx_tok_skb(skb))
		ftrace_regs_set_instruction_pointer(fregs,
						    (unsigned long)devmemx_tok_recvmsg);
}

static void notrace devmemx_tok_dontneed_thunk(unsigned long ip,
					       unsigned long parent_ip,
					       struct ftrace_ops *op,
					       struct ftrace_regs *fregs)
{
	struct sock *sk = (void *)ftrace_regs_get_argument(fregs, 0);

	if (sk_is_tcp(sk) && devmemx_tok_marked(sk))
		ftrace_regs_set_instruction_pointer(fregs,
						    (unsigned long)devmemx_tok_dontneed);
}

static void notrace devmemx_tok_destroy_thunk(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	struct sock *sk = (void *)ftrace_regs_get_argument(fregs, 0);

	if (devmemx_tok_marked(sk) && devmemx_tok_close(sk))
		devmemx_tokhook_idle();
}

/*
 * PERMANENT, as dispatch.c's: without them the kernel's own code would
 * run on token-array sockets, and its destroy would hand the array to the
 * page pool. So kernel.ftrace_enabled cannot go to 0 while they live.
 */
#define DX_TOK_HOOK(fn, thunk, extra) \
	{ .name = #fn, .ops = { .func = thunk, \
	  .flags = FTRACE_OPS_FL_PERMANENT | (extra) } }

static struct devmemx_tok_hook devmemx_tok_hooks[] = {
	DX_TOK_HOOK(tcp_recvmsg_dmabuf, devmemx_tok_recv_thunk,
		    FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY),
	DX_TOK_HOOK(sock_devmem_dontneed, devmemx_tok_dontneed_thunk,
		    FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY),
	DX_TOK_HOOK(tcp_v4_destroy_sock, devmemx_tok_destroy_thunk, 0),
};

/*
 * devmemx's bodies take what the kernel's functions take (BTF, at build);
 * the destroy's hook reads its one argument, a struct sock *.
 */
#if DEVMEMX_BTF_TOK_PROTOS
static_assert(__same_type(&devmemx_tok_recvmsg,
			  int (*)(struct sock *, const struct sk_buff *,
				  unsigned int, struct msghdr *, int)));
static_assert(__same_type(&devmemx_tok_dontneed,
			  int (*)(struct sock *, sockptr_t, unsigned int)));
#endif

static int devmemx_tok_hook(struct devmemx_tok_hook *h)
{
	int err = devmemx_ftrace_on(&h->ops, h->target);

	if (err == -EBUSY)
		pr_err("cannot hook %s (-EBUSY): kernel.ftrace_enabled is 0 (sysctl kernel.ftrace_enabled=1), or a live patch holds it\n",
		       h->name);
	else if (err)
		pr_err("cannot hook %s (%d): is it live-patched or traced with IPMODIFY by someone else?\n",
		       h->name, err);
	return err;
}

static void devmemx_tok_unhook(unsigned int n)
{
	while (n--)
		devmemx_ftrace_off(&devmemx_tok_hooks[n].ops,
				   devmemx_tok_hooks[n].target);
}

void devmemx_tokhook_init(void)
{
	const struct devmemx_tok_reviewed *r = devmemx_tok_entry();

	if (!r ||
	    !devmemx_tok_sym(devmemx_tok_recvmsg_addr, "tcp_recvmsg_dmabuf",
			     r->recvmsg_size) ||
	    !devmemx_tok_sym(devmemx_tok_dontneed_addr, "sock_devmem_dontneed",
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
	if (!DEVMEMX_BTF_TOK_PROTOS) {
		devmemx_tok_off("%s", DEVMEMX_BTF_TOK_WHY);
		return;
	}
	devmemx_tok_state = DEVMEMX_TOKEN_ARRAY_READY;
	snprintf(devmemx_tok_why, sizeof(devmemx_tok_why), "reviewed for %s",
		 r->release);
	devmemx_tok_hooks[0].target = devmemx_tok_recvmsg_addr;
	devmemx_tok_hooks[1].target = devmemx_tok_dontneed_addr;
	devmemx_tok_hooks[2].target = (unsigned long)READ_ONCE(tcp_prot.destroy);
}

u32 devmemx_tokhook_state(const char **why)
{
	*why = devmemx_tok_why;
	if (devmemx_tok_state == DEVMEMX_TOKEN_ARRAY_READY &&
	    READ_ONCE(devmemx_tok_hooked))
		return DEVMEMX_TOKEN_ARRAY_HOOKED;
	return devmemx_tok_state;
}

/*
 * Take the hooks for a token-array binding: registered at the first, kept
 * until the last such binding and socket are gone (devmemx_tok_work).
 */
int devmemx_tokhook_get(struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err = 0;

	mutex_lock(&devmemx_tok_lock);
	if (devmemx_tok_hooked)
		goto out;
	for (i = 0; i < ARRAY_SIZE(devmemx_tok_hooks); i++) {
		err = devmemx_tok_hook(&devmemx_tok_hooks[i]);
		if (err) {
			NL_SET_ERR_MSG_FMT(extack,
					   "autorelease 0: cannot hook %s (%d): see dmesg",
					   devmemx_tok_hooks[i].name, err);
			devmemx_tok_unhook(i);
			goto unlock;
		}
	}
	WRITE_ONCE(devmemx_tok_hooked, true);
out:
	atomic_inc(&devmemx_tok_users);
unlock:
	mutex_unlock(&devmemx_tok_lock);
	return err;
}

/* A token-array binding is freed. */
void devmemx_tokhook_put(void)
{
	atomic_dec(&devmemx_tok_users);
	devmemx_tokhook_idle();
}

/* Under devmemx_tok_lock. */
static void devmemx_tok_unhook_all(void)
{
	if (!devmemx_tok_hooked)
		return;
	devmemx_tok_unhook(ARRAY_SIZE(devmemx_tok_hooks));
	WRITE_ONCE(devmemx_tok_hooked, false);
}

static void devmemx_tok_work_fn(struct work_struct *w)
{
	mutex_lock(&devmemx_tok_lock);
	if (!atomic_read(&devmemx_tok_users) && !atomic_read(&devmemx_tok_socks))
		devmemx_tok_unhook_all();
	mutex_unlock(&devmemx_tok_lock);
}

/*
 * Module exit: no binding and no socket holds the module any more. The
 * hooks go whatever the counts say: ftrace must never keep ops in freed
 * module memory.
 */
void devmemx_tokhook_exit(void)
{
	cancel_work_sync(&devmemx_tok_work);
	mutex_lock(&devmemx_tok_lock);
	WARN_ON_ONCE(atomic_read(&devmemx_tok_users) ||
		     atomic_read(&devmemx_tok_socks));
	devmemx_tok_unhook_all();
	mutex_unlock(&devmemx_tok_lock);
}

/*
 * BIND-RX's and BIND-CHECK's autorelease @attr (absent: xarray): 0, or,
 * for token-array where this kernel cannot have it, -EOPNOTSUPP with the
 * reason, before anything is made.
 */
int devmemx_tokhook_check_bind(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (nla_get_u8_default(attr, DEVMEMX_AUTORELEASE_XARRAY) !=
	    DEVMEMX_AUTORELEASE_TOKEN_ARRAY ||
	    devmemx_tok_state == DEVMEMX_TOKEN_ARRAY_READY)
		return 0;
	NL_SET_BAD_ATTR(extack, attr);
	if (strlen(devmemx_tok_why) <= DEVMEMX_TOK_WHY_MAX)
		NL_SET_ERR_MSG_FMT(extack, "autorelease 0: %s: use autorelease 1",
				   devmemx_tok_why);
	else	/* a long release name: the message would be cut */
		NL_SET_ERR_MSG(extack,
			       "autorelease 0: no token array here (see devmemx info): use autorelease 1");
	return -EOPNOTSUPP;
}
