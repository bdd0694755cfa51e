// SPDX-License-Identifier: GPL-2.0
/*
 * dx-redirect IFNAME NETKIT ADDR: on IFNAME's ingress (tcx), send every
 * IPv4 packet for ADDR to the peer of NETKIT (the pod's end of the pair),
 * as the kernel's selftest nk_forward.bpf.c does for an IPv6 prefix with
 * bpf_redirect_peer(). Prints "ok" once attached and holds the link until
 * killed. The VM has no compiler and no BPF object files: the program is
 * written out below, as xdp-pass.c's is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

static int load(unsigned int peer, __u32 addr)
{
	struct bpf_insn insns[] = {
		/* r2 = data, r3 = data_end */
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1, 0,
		     0) /* patched below */,
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1, 0, 0),
		/* an Ethernet and an IPv4 header there, or pass */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, 34),
		INSN(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 8, 0),
		/* h_proto is IPv4 and daddr is ADDR, or pass */
		INSN(BPF_LDX | BPF_H | BPF_MEM, BPF_REG_5, BPF_REG_2, 12, 0),
		INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, 6, htons(0x0800)),
		INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_2, 30, 0),
		INSN(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, 4, (__s32)addr),
		/* return bpf_redirect_peer(peer, 0) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, peer),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_peer),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* pass: TCX_PASS */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TCX_PASS),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	char log[4096] = "";
	union bpf_attr attr;
	int fd;

	insns[0].off = offsetof(struct __sk_buff, data);
	insns[1].off = offsetof(struct __sk_buff, data_end);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.expected_attach_type = BPF_TCX_INGRESS;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		fprintf(stderr, "dx-redirect: loading the program: %s\n%s",
			strerror(errno), log);
	return fd;
}

int main(int argc, char **argv)
{
	unsigned int ifindex, peer;
	union bpf_attr attr;
	struct in_addr addr;
	int prog, link;
	sigset_t set;
	int sig;

	if (argc != 4) {
		fprintf(stderr, "usage: dx-redirect IFNAME NETKIT ADDR\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	peer = if_nametoindex(argv[2]);
	if (!ifindex || !peer || inet_pton(AF_INET, argv[3], &addr) != 1) {
		fprintf(stderr, "dx-redirect: no device %s or %s, or %s is no IPv4 address\n",
			argv[1], argv[2], argv[3]);
		return 1;
	}
	prog = load(peer, addr.s_addr);
	if (prog < 0)
		return 1;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog;
	attr.link_create.target_ifindex = ifindex;
	attr.link_create.attach_type = BPF_TCX_INGRESS;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (link < 0) {
		fprintf(stderr, "dx-redirect: attaching to %s's tcx ingress: %s\n",
			argv[1], strerror(errno));
		return 1;
	}
	/* The link holds the program: wait for the signal that ends both. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ok\n");
	fflush(stdout);
	sigwait(&set, &sig);
	close(link);
	close(prog);
	return 0;
}
