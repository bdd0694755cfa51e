// SPDX-License-Identifier: GPL-2.0
/*
 * The token array (doc/token-array.md): what a TCP socket on an
 * autorelease-0 binding runs in place of the kernel's tcp_recvmsg_dmabuf()
 * and sock_devmem_dontneed(), and what its destroy runs first. tokhook.c
 * redirects the calls here, for such sockets only.
 *
 * A token is the niov's index in the binding's carving (niov.c). The
 * socket keeps one user reference count per niov of its binding, in an
 * array hung off its own sk_user_frags at DEVMEMX_TOK_INDEX, an index the
 * kernel's code never reaches (its tokens are allocated below 2^31, and
 * DONTNEED asks in u32), marked DEVMEMX_TOK_MARK, a mark the kernel's
 * allocating xarray does not use. Each user reference holds one page pool
 * reference of its niov, so while a socket holds one, the niov's pool and
 * binding live: the array's binding is followed only then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/skbuff_ref.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/xarray.h>
#include <net/netmem.h>
#include <net/page_pool/helpers.h>
#include <net/sock.h>
#include <uapi/linux/uio.h>

#include "devmemx.h"
#include "generated/netlink.h"

/* The kernel's limits for one SO_DEVMEM_DONTNEED (net/core/sock.c). */
#define DEVMEMX_TOK_MAX_ENTRIES	128
#define DEVMEMX_TOK_MAX_FRAGS	1024

struct devmemx_tok_sock {
	u32 id;				/* the binding's */
	u32 n;				/* its niovs, the tokens */
	struct devmemx_binding *b;	/* followed only while a uref is held */
	size_t bytes;			/* what this took, as allocated */
	/*
	 * The lowest and highest token ever counted (lo > hi: none): what
	 * the close scans. Written by the receive only, under the socket's
	 * lock, and read at the destroy, which never runs beside it.
	 */
	u32 lo, hi;
	atomic_t urefs[];
};

atomic_t devmemx_tok_socks;
atomic_long_t devmemx_tok_bytes;

static struct devmemx_tok_sock *devmemx_tok_of(struct sock *sk)
{
	return xa_load(&sk->sk_user_frags, DEVMEMX_TOK_INDEX);
}

/*
 * The devmemx token-array binding @netmem belongs to; NULL for any other
 * memory (in-tree devmem, devmemx's xarray mode, io_uring's).
 */
notrace struct devmemx_binding *devmemx_tok_binding(netmem_ref netmem)
{
	struct devmemx_binding *b;
	struct net_iov *niov;

	if (!netmem_is_net_iov(netmem))
		return NULL;
	niov = netmem_to_net_iov(netmem);
	if (niov->type != NET_IOV_DMABUF)
		return NULL;
	/* In-tree's owner has its binding at the same offset (devmemx.h). */
	b = container_of(niov->owner, struct devmemx_owner, area)->binding;
	if (!devmemx_binding_is_ours(b) ||
	    READ_ONCE(b->autorelease) != DEVMEMX_AUTORELEASE_TOKEN_ARRAY)
		return NULL;
	return b;
}

/*
 * The socket's array for binding @b, made at its first token: charged to
 * the receiver's memory cgroup and held to a sixteenth of RAM in all. A
 * socket holding the kernel's own tokens gets none (one socket, one
 * binding).
 */
static struct devmemx_tok_sock *devmemx_tok_make(struct sock *sk,
						 struct devmemx_binding *b)
{
	XA_STATE(xas, &sk->sk_user_frags, DEVMEMX_TOK_INDEX);
	struct devmemx_tok_sock *ts;
	unsigned long idx = 0;
	size_t bytes;
	int err;

	/* Not xa_empty(): a failed store below can leave nodes behind. */
	if (xa_find(&sk->sk_user_frags, &idx, U32_MAX, XA_PRESENT))
		return ERR_PTR(-EFAULT);
	bytes = struct_size(ts, urefs, b->niov_count);
	if (atomic_long_add_return(bytes, &devmemx_tok_bytes) >
	    (long)(totalram_pages() / 16) << PAGE_SHIFT) {
		atomic_long_sub(bytes, &devmemx_tok_bytes);
		net_warn_ratelimited("devmemx: token arrays would take more than a sixteenth of RAM: socket of binding %u refused\n",
				     b->id);
		return ERR_PTR(-ENOBUFS);
	}
	ts = kvzalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!ts) {
		atomic_long_sub(bytes, &devmemx_tok_bytes);
		return ERR_PTR(-ENOMEM);
	}
	ts->id = b->id;
	ts->n = b->niov_count;
	ts->b = b;
	ts->bytes = bytes;
	ts->lo = U32_MAX;
	do {
		xas_lock_bh(&xas);
		xas_store(&xas, ts);
		if (!xas_error(&xas))
			xas_set_mark(&xas, DEVMEMX_TOK_MARK);
		xas_unlock_bh(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL_ACCOUNT));
	err = xas_error(&xas);
	if (err) {
		kvfree(ts);
		atomic_long_sub(bytes, &devmemx_tok_bytes);
		return ERR_PTR(err);
	}
	/* Dropped at the socket's destroy: the hooks stay until then. */
	__module_get(THIS_MODULE);
	atomic_inc(&devmemx_tok_socks);
	return ts;
}

/* A cmsg whole or none, as the kernel's put_cmsg_notrunc() (not exported). */
static int devmemx_tok_cmsg(struct msghdr *msg, int type,
			    struct dmabuf_cmsg *c)
{
	if (!msg->msg_control || msg->msg_controllen < CMSG_LEN(sizeof(*c)))
		return -ETOOSMALL;
	return put_cmsg(msg, SOL_SOCKET, type, sizeof(*c), c);
}

/*
 * One fragment's cmsg: its niov referenced and its token counted first, so
 * that a DONTNEED of that token in between finds what it releases; both
 * undone when the cmsg cannot be put (unless a DONTNEED took them). A
 * niov is counted at most INT_MAX times a socket (MSG_PEEK can count it
 * again and again): past that the receive fails with EBUSY, as the
 * kernel's does when its token ids run out.
 */
static int devmemx_tok_frag(struct devmemx_tok_sock *ts,
			    struct devmemx_binding *b, struct net_iov *niov,
			    struct msghdr *msg, struct dmabuf_cmsg *c)
{
	u32 t = devmemx_niov_token(b, niov);
	int err;

	if (WARN_ON_ONCE(t >= ts->n))
		return -EFAULT;
	atomic_long_inc(&niov->desc.pp_ref_count);
	if (!atomic_add_unless(&ts->urefs[t], 1, INT_MAX)) {
		atomic_long_dec(&niov->desc.pp_ref_count);
		return -EBUSY;
	}
	ts->lo = min(ts->lo, t);
	ts->hi = max(ts->hi, t);
	c->frag_token = t;
	err = devmemx_tok_cmsg(msg, SO_DEVMEM_DMABUF, c);
	if (err && atomic_dec_if_positive(&ts->urefs[t]) >= 0)
		atomic_long_dec(&niov->desc.pp_ref_count);
	return err;
}

/*
 * tcp_recvmsg_dmabuf() for a token-array socket, under the socket's lock:
 * up to @remaining_len bytes from @offset of @skb (and its frag_list)
 * reported in cmsgs; the bytes reported, or the error when none were.
 */
int devmemx_tok_recvmsg(struct sock *sk, const struct sk_buff *skb,
			unsigned int offset, struct msghdr *msg,
			int remaining_len)
{
	struct devmemx_tok_sock *ts = devmemx_tok_of(sk);
	struct dmabuf_cmsg c;
	int i, copy, n, sent = 0, err = 0;
	unsigned int start;

	do {
		start = skb_headlen(skb);
		if (skb_frags_readable(skb)) {
			err = -ENODEV;
			goto out;
		}
		copy = start - offset;
		if (copy > 0) {
			copy = min(copy, remaining_len);
			n = copy_to_iter(skb->data + offset, copy,
					 &msg->msg_iter);
			if (n != copy) {
				err = -EFAULT;
				goto out;
			}
			offset += copy;
			remaining_len -= copy;
			memset(&c, 0, sizeof(c));
			c.frag_size = copy;
			err = devmemx_tok_cmsg(msg, SO_DEVMEM_LINEAR, &c);
			if (err)
				goto out;
			sent += copy;
			if (!remaining_len)
				goto out;
		}
		for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
			const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
			struct devmemx_binding *b;
			struct devmemx_owner *o;
			struct net_iov *niov;
			int end;

			if (!netmem_is_net_iov(skb_frag_netmem(frag)) ||
			    skb_frag_net_iov(frag)->type != NET_IOV_DMABUF) {
				err = -ENODEV;
				goto out;
			}
			end = start + skb_frag_size(frag);
			copy = end - offset;
			if (copy <= 0) {
				start = end;
				continue;
			}
			/*
			 * Only the socket's own binding, as upstream's: the same
			 * one, not another at its freed address. The fragment
			 * holds its binding: the socket's pointer with the
			 * socket's id is that binding, found without the lookup
			 * of devmemx_tok_binding() (nearly half this body's time
			 * at 4K); anything else takes the whole check.
			 */
			niov = skb_frag_net_iov(frag);
			b = container_of(niov->owner, struct devmemx_owner,
					 area)->binding;
			if (!ts || b != ts->b || READ_ONCE(b->id) != ts->id) {
				b = devmemx_tok_binding(skb_frag_netmem(frag));
				if (!b || (ts && (ts->b != b || ts->id != b->id))) {
					err = -EFAULT;
					goto out;
				}
			}
			if (!ts) {
				ts = devmemx_tok_make(sk, b);
				if (IS_ERR(ts)) {
					err = PTR_ERR(ts);
					ts = NULL;
					goto out;
				}
			}
			copy = min(copy, remaining_len);
			o = container_of(niov->owner, struct devmemx_owner, area);
			memset(&c, 0, sizeof(c));
			c.frag_offset = o->area.base_virtual +
					((u64)(niov - o->area.niovs) << b->niov_shift) +
					skb_frag_off(frag) + offset - start;
			c.frag_size = copy;
			c.dmabuf_id = b->id;
			err = devmemx_tok_frag(ts, b, niov, msg, &c);
			if (err)
				goto out;
			offset += copy;
			remaining_len -= copy;
			sent += copy;
			if (!remaining_len)
				goto out;
			start = end;
		}
		if (!remaining_len)
			goto out;
		skb = skb_shinfo(skb)->frag_list ?: skb->next;
		offset -= start;
	} while (skb);
	if (remaining_len)
		err = -EFAULT;
out:
	return sent ?: err;
}

/*
 * sock_devmem_dontneed() for a token-array socket, without the socket's
 * lock: each token of each {start, count} drops one of the socket's urefs
 * of that niov, if it holds one; a token returned twice, unheld or past
 * the binding releases nothing. The kernel's limits and errors hold: every
 * token asked for counts towards the 1024, as the kernel counts them
 * (its u32 token wraps as theirs does).
 */
int devmemx_tok_dontneed(struct sock *sk, sockptr_t optval,
			 unsigned int optlen)
{
	struct devmemx_tok_sock *ts;
	struct dmabuf_token *tok;
	unsigned int i, j, k, frags = 0;
	int ret = 0;

	if (!sk_is_tcp(sk))
		return -EBADF;
	if (optlen % sizeof(*tok) ||
	    optlen > sizeof(*tok) * DEVMEMX_TOK_MAX_ENTRIES)
		return -EINVAL;
	k = optlen / sizeof(*tok);
	tok = kvmalloc_array(k, sizeof(*tok), GFP_KERNEL);
	if (!tok)
		return -ENOMEM;
	if (copy_from_sockptr(tok, optval, optlen)) {
		kvfree(tok);
		return -EFAULT;
	}
	ts = devmemx_tok_of(sk);
	for (i = 0; ts && i < k; i++) {
		for (j = 0; j < tok[i].token_count; j++) {
			u32 t = tok[i].token_start + j;
			struct net_iov *niov;

			if (++frags > DEVMEMX_TOK_MAX_FRAGS)
				goto out;
			if (t >= ts->n)
				continue;
			if (atomic_dec_if_positive(&ts->urefs[t]) < 0)
				continue;
			/* The uref held the niov, its pool and its binding. */
			niov = devmemx_niov_of_token(ts->b, t);
			WARN_ON_ONCE(!napi_pp_put_page(net_iov_to_netmem(niov)));
			ret++;
		}
	}
out:
	kvfree(tok);
	return ret;
}

/*
 * Before tcp_v4_destroy_sock() drains the socket's xarray: take the array
 * out of it and give back every niov the socket still holds (it scans the
 * tokens the socket ever counted). Process context with BH off, or
 * softirq for an orphan: nothing here sleeps.
 * Whether that was the last socket with an array.
 */
bool devmemx_tok_close(struct sock *sk)
{
	struct devmemx_tok_sock *ts;
	unsigned int k;
	bool last;
	u32 t;

	ts = xa_erase_bh(&sk->sk_user_frags, DEVMEMX_TOK_INDEX);
	if (!ts)
		return false;
	for (t = ts->lo; t <= ts->hi && t < ts->n; t++) {
		struct net_iov *niov;

		k = atomic_read(&ts->urefs[t]);
		if (!k)
			continue;
		niov = devmemx_niov_of_token(ts->b, t);
		while (k--)
			WARN_ON_ONCE(!napi_pp_put_page(net_iov_to_netmem(niov)));
	}
	atomic_long_sub(ts->bytes, &devmemx_tok_bytes);
	kvfree_atomic(ts);
	last = atomic_dec_and_test(&devmemx_tok_socks);
	module_put(THIS_MODULE);
	return last;
}
