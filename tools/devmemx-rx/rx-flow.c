// SPDX-License-Identifier: GPL-2.0
/*
 * A flow's way in: the ntuple rule that steers it (TCP to --port) to the
 * first bound queue, through the SIOCETHTOOL ioctl, deleted on every way
 * out; the listener on --port and the connection accepted there, which
 * the devmem and zcrx receivers then read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "rx.h"

static int ethtool(struct rx_flow *f, void *data)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->dev);
	ifr.ifr_data = data;
	return ioctl(f->fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static bool loc_used(const struct ethtool_rxnfc *all, uint32_t loc)
{
	uint32_t i;

	for (i = 0; i < all->rule_cnt; i++)
		if (all->rule_locs[i] == loc)
			return true;
	return false;
}

/* The highest free slot of the rule table, for drivers without LOC_ANY. */
static int flow_free_loc(struct rx_flow *f, uint32_t count, uint32_t size,
			 uint32_t *loc)
{
	struct ethtool_rxnfc *all;
	uint32_t l;
	int ret;

	all = calloc(1, sizeof(*all) + count * sizeof(uint32_t));
	if (!all)
		return -ENOMEM;
	all->cmd = ETHTOOL_GRXCLSRLALL;
	all->rule_cnt = count;
	ret = ethtool(f, all);
	if (!ret)
		ret = -ENOSPC;
	for (l = size; ret == -ENOSPC && l > 0; l--) {
		if (!loc_used(all, l - 1)) {
			*loc = l - 1;
			ret = 0;
		}
	}
	free(all);
	return ret;
}

/* Where to insert: RX_CLS_LOC_ANY when the driver picks, else a free slot. */
static int flow_loc(struct rx_flow *f, uint32_t *loc)
{
	struct ethtool_rxnfc cnt = { .cmd = ETHTOOL_GRXCLSRLCNT };

	*loc = RX_CLS_LOC_ANY;
	if (ethtool(f, &cnt) || (cnt.data & RX_CLS_LOC_SPECIAL))
		return 0;
	return flow_free_loc(f, cnt.rule_cnt, cnt.data, loc);
}

/* IPv6 only when --listen names a (not v4-mapped) IPv6 address. */
static bool flow_v6(const struct rx_opts *o)
{
	struct in6_addr a;

	return o->listen && inet_pton(AF_INET6, o->listen, &a) == 1 &&
	       !IN6_IS_ADDR_V4MAPPED(&a);
}

static void flow_spec(struct ethtool_rx_flow_spec *fs, const struct rx_opts *o)
{
	if (flow_v6(o)) {
		fs->flow_type = TCP_V6_FLOW;
		fs->h_u.tcp_ip6_spec.pdst = htons(o->port);
		fs->m_u.tcp_ip6_spec.pdst = 0xffff;
	} else {
		fs->flow_type = TCP_V4_FLOW;
		fs->h_u.tcp_ip4_spec.pdst = htons(o->port);
		fs->m_u.tcp_ip4_spec.pdst = 0xffff;
	}
	fs->ring_cookie = o->queues[0];
}

int rx_flow_add(struct rx_flow *f, const struct rx_opts *o)
{
	struct ethtool_rxnfc ins = { .cmd = ETHTOOL_SRXCLSRLINS };
	int ret;

	f->dev = o->dev;
	f->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (f->fd < 0) {
		ret = -errno;
		fprintf(stderr, "devmemx-rx: cannot open a socket for ethtool: %s\n",
			strerror(-ret));
		return ret;
	}
	flow_spec(&ins.fs, o);
	ret = flow_loc(f, &ins.fs.location);
	if (!ret)
		ret = ethtool(f, &ins);
	if (ret) {
		fprintf(stderr, "devmemx-rx: cannot steer %s dst port %u to queue %u on %s: %s (turn ntuple filters on: ethtool -K %s ntuple on; or pass --no-flow-rule and steer the flow yourself)\n",
			flow_v6(o) ? "tcp6" : "tcp4", o->port, o->queues[0],
			o->dev, strerror(-ret), o->dev);
		close(f->fd);
		f->fd = -1;
		return ret;
	}
	f->loc = ins.fs.location;
	return 0;
}

void rx_flow_del(struct rx_flow *f)
{
	struct ethtool_rxnfc del = { .cmd = ETHTOOL_SRXCLSRLDEL };
	int ret;

	if (f->fd < 0)
		return;
	del.fs.location = f->loc;
	/*
	 * A rule goes with its device; and the name may be another device's
	 * by now.
	 */
	ret = rx_link_lost ? 0 : ethtool(f, &del);
	if (ret && ret != -ENODEV)
		fprintf(stderr, "devmemx-rx: cannot delete flow rule %u on %s: %s (delete it: ethtool -N %s delete %u)\n",
			f->loc, f->dev, strerror(-ret), f->dev, f->loc);
	close(f->fd);
	f->fd = -1;
}

int rx_listen(const struct rx_opts *o)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr *sa = (struct sockaddr *)&a6;
	socklen_t len = sizeof(a6);
	int fd, one = 1, zero = 0;

	a6.sin6_port = htons(o->port);
	a4.sin_port = htons(o->port);
	if (o->listen && inet_pton(AF_INET, o->listen, &a4.sin_addr) == 1) {
		sa = (struct sockaddr *)&a4;
		len = sizeof(a4);
	} else if (o->listen) {
		inet_pton(AF_INET6, o->listen, &a6.sin6_addr);
	}
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto err;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6 && !o->listen)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, sa, len) || listen(fd, 1))
		goto err;
	return fd;
err:
	fprintf(stderr, "devmemx-rx: cannot listen on %s port %u: %s%s\n",
		o->listen ? o->listen : "any address", o->port, strerror(errno),
		errno == EADDRINUSE ? " (pick another --port)" : "");
	if (fd >= 0)
		close(fd);
	return -EADDRNOTAVAIL;
}

int rx_accept(int lfd, const struct rx_opts *o)
{
	int ret, fd;

	ret = rx_wait(lfd, POLLIN, o->timeout ? o->timeout * 1000 : -1);
	if (ret == 0) {
		fprintf(stderr, "devmemx-rx: no connection on port %u within %d s (start the sender, or raise --timeout)\n",
			o->port, o->timeout);
		return -ETIMEDOUT;
	}
	if (ret < 0)
		return ret;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "devmemx-rx: accept: %s\n", strerror(errno));
		return -errno;
	}
	return fd;
}
