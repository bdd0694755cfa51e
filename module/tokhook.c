// SPDX-License-Identifier: GPL-2.0
/*
 * The token array's hooks (doc/token-array.md). Bindings may ask for
 * autorelease token-array only where the gate (gate.c) allows the three
 * functions the hooks take: tcp_recvmsg_dmabuf and sock_devmem_dontneed,
 * redirected to tokens.c's bodies for token-array sockets only, and
 * tcp_v4_destroy_sock, before which tokens.c's close runs. That is decided
 * once, at load; INFO reports it, and BIND-RX and BIND-CHECK refuse
 * autorelease token-array elsewhere, with the gate's reason. The hooks
 * are there from the first token-array bind until no such binding and no
 * socket of one is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/netlink.h>
#include <net/tcp.h>

#include "devmemx.h"
#include "gate.h"
#include "generated/netlink.h"

/*
 * What INFO reports: the state and why (the gate's, when unavailable).
 * The refusal quotes a why up to DEVMEMX_TOK_WHY_MAX characters, the most
 * that fits in an extack message beside its own words.
 */
#define DEVMEMX_TOK_WHY_MAX \
	(NETLINK_MAX_FMTMSG_LEN - sizeof("autorelease 0: : use autorelease 1"))
static enum devmemx_token_array devmemx_tok_state;
static char devmemx_tok_why[NETLINK_MAX_FMTMSG_LEN];

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
	static const enum devmemx_gate_fn fns[] = {
		DEVMEMX_GATE_RECVMSG, DEVMEMX_GATE_DONTNEED, DEVMEMX_GATE_DESTROY,
	};
	unsigned long addr[ARRAY_SIZE(fns)];
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(fns) != ARRAY_SIZE(devmemx_tok_hooks));
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		addr[i] = devmemx_gate_addr(fns[i], devmemx_tok_why,
					    sizeof(devmemx_tok_why));
		if (!addr[i]) {
			devmemx_tok_state = DEVMEMX_TOKEN_ARRAY_UNAVAILABLE;
			pr_info("no token array: %s\n", devmemx_tok_why);
			return;
		}
	}
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		devmemx_tok_hooks[i].target = addr[i];
	devmemx_tok_state = DEVMEMX_TOKEN_ARRAY_READY;
	snprintf(devmemx_tok_why, sizeof(devmemx_tok_why), "reviewed for %s",
		 devmemx_gate_release());
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
	else	/* it would be cut */
		NL_SET_ERR_MSG(extack,
			       "autorelease 0: no token array here (see devmemx info): use autorelease 1");
	return -EOPNOTSUPP;
}
