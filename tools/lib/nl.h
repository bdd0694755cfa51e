/* SPDX-License-Identifier: GPL-2.0 */
/* Talking to generic netlink families: requests, replies, extack. */
#ifndef DX_NL_H
#define DX_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/genl/genl.h>

#include "names.h"
#include "util.h"

/*
 * Advice for a failed request: @err is the positive errno, @extack the
 * kernel's message or NULL. Return a text that says what to change, or NULL.
 */
typedef const char *(*dx_hint_fn)(int err, const char *extack, void *arg);

struct dx_nl {
	struct nl_sock *sk;
	int family;
	const char *family_name;
	dx_hint_fn hint;	/* optional, NULL after dx_nl_open() */
	void *hint_arg;
	int quiet_err;		/* an errno to return without a message, or 0 */
};

/*
 * One reply message: @tb holds the last attribute of each type, @attrs and
 * @len all of them in order (for multi-attr attributes).
 */
struct dx_reply {
	struct nlattr **tb;
	struct nlattr *attrs;
	int len;
};

/* Reply handler: called once per reply message (several for a dump). */
typedef int (*dx_reply_fn)(const struct dx_reply *r, void *arg);

int dx_nl_open(struct dx_nl *nl, const char *family_name);
void dx_nl_close(struct dx_nl *nl);
struct nl_msg *dx_nl_msg(struct dx_nl *nl, int cmd, bool dump);
/*
 * Send @msg (consumed), parse each reply into @tb (@maxattr), call @fn.
 * On a kernel error print "<dx_prog>: @what: <extack> (<errno text>)" (see
 * dx_hint_fn for advice appended to it) and return the negative errno.
 */
int dx_nl_call(struct dx_nl *nl, struct nl_msg *msg, int maxattr,
	       dx_reply_fn fn, void *arg, const char *what);

/*
 * Whether @family's operation @cmd takes attribute @attr on this kernel
 * (its policy, from the controller): 1 or 0, or a negative errno after a
 * message.
 */
int dx_op_takes_attr(const char *family, uint8_t cmd, uint16_t attr);

/*
 * One dump of @family's @cmd in a socket of its own, with @fn per reply;
 * @attr (0: none) a u32 attribute of the request, set to @val (qstats-get's
 * scope); @quiet_err an errno to return without a message, or 0.
 */
int dx_nl_dump(const char *family, int cmd, int maxattr, int attr,
	       uint32_t val, dx_reply_fn fn, void *arg, const char *what,
	       int quiet_err);

/* The value of a variable-width unsigned ("uint") attribute: 4 or 8 bytes. */
uint64_t dx_nla_uint(const struct nlattr *a);
/* Attribute @attr of @r as dx_nla_uint() reads it; 0 when @r has none. */
uint64_t dx_reply_uint(const struct dx_reply *r, int attr);

#endif
