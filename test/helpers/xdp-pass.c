// SPDX-License-Identifier: GPL-2.0
/*
 * dx-xdp-pass IFNAME [frags]: attach a generic-mode (skb) XDP program that
 * passes every packet to IFNAME and exit; it stays attached until
 * "ip link set dev IFNAME xdpgeneric off". With "frags" the program says it
 * handles multi-buffer packets (BPF_F_XDP_HAS_FRAGS), which the kernel
 * requires while tcp-data-split is enabled. Tests use it to see what an
 * attached XDP program does to devmem (the VM has no compiler, no BPF
 * object files).
 */
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static int load_pass(bool frags)
{
	struct bpf_insn insns[] = {
		/* r0 = XDP_PASS; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	if (frags)
		attr.prog_flags = BPF_F_XDP_HAS_FRAGS;
	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

static int attach(unsigned int ifindex, int prog)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[64];
	} req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
		char extra[512];
	} ack;
	struct rtattr *xdp, *a;
	int fd, ret;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_SETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;
	xdp = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
	a = RTA_DATA(xdp);
	a->rta_type = IFLA_XDP_FD;
	a->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(a), &prog, sizeof(int));
	a = (struct rtattr *)((char *)a + RTA_ALIGN(a->rta_len));
	a->rta_type = IFLA_XDP_FLAGS;
	a->rta_len = RTA_LENGTH(sizeof(__u32));
	*(__u32 *)RTA_DATA(a) = XDP_FLAGS_SKB_MODE;
	xdp->rta_len = RTA_LENGTH(2 * RTA_ALIGN(RTA_LENGTH(4)));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(xdp->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	ret = send(fd, &req, req.nh.nlmsg_len, 0) < 0 ? -errno : 0;
	if (!ret)
		ret = recv(fd, &ack, sizeof(ack), 0) < 0 ? -errno : 0;
	if (!ret)
		ret = ack.nh.nlmsg_type == NLMSG_ERROR ? ack.err.error : -EPROTO;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int ifindex;
	int prog, ret;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "frags"))) {
		fprintf(stderr, "usage: dx-xdp-pass IFNAME [frags]\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "dx-xdp-pass: no network device \"%s\"\n", argv[1]);
		return 1;
	}
	prog = load_pass(argc == 3);
	if (prog < 0) {
		fprintf(stderr, "dx-xdp-pass: loading the program: %s\n",
			strerror(errno));
		return 1;
	}
	ret = attach(ifindex, prog);
	if (ret) {
		fprintf(stderr, "dx-xdp-pass: attaching to %s: %s\n", argv[1],
			strerror(-ret));
		return 1;
	}
	return 0;
}
