#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test/tok-review.py, the compiler's side of a token-array review, on small
# images built here: a caller and a callee written instruction by
# instruction (naked functions, so the prototypes reach the BTF that
# pahole makes from their DWARF), linked where the kernel's text is. The
# image as written passes; each check then fails, with its own message,
# on an image with one planted defect.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
review=/src/test/tok-review.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# The image, with @NAME@ markers a variant replaces. tcp_recvmsg_locked
# calls tcp_recvmsg_dmabuf (the in-tree prototypes); r8 comes from either
# side of a branch; after the call the int goes to %ecx and %r8 (sign-
# extended), and a static branch (the __jump_table entry) may jump from
# the nop after the call to 5:.
cat >image.c.in <<'EOF'
struct sock;
struct sk_buff;
struct msghdr;

__attribute__((naked)) void __fentry__(void)
{
	asm("ret");
}

__attribute__((naked)) int tcp_recvmsg_dmabuf(struct sock *sk,
		const struct sk_buff *skb, unsigned int offset,
		struct msghdr *msg, int remaining_len)
{
	asm("@HEAD@\n"
	    "push %rbx\n"
	    "mov %edx,%eax\n"
	    "add %r8d,%eax\n"
	    "pop %rbx\n"
	    "ret\n");
}

__attribute__((naked)) int helper(struct sock *sk)
{
	asm("call __fentry__\n"
	    "mov $1,%eax\n"
	    "ret\n");
}

__attribute__((naked)) int tcp_recvmsg_locked(struct sock *sk,
		struct msghdr *msg, unsigned long len, int flags)
{
	asm("call __fentry__\n"
	    "push %rbx\n"
	    "push %rbp\n"
	    "push %r12\n"
	    "mov %rdi,%rbp\n"
	    "mov %rsi,%r12\n"
	    "mov %edx,%ebx\n"
	    "test %ecx,%ecx\n"
	    "je 1f\n"
	    "@R8A@\n"
	    "jmp 2f\n"
	    "1: mov %ebx,%r8d\n"
	    "2: mov %r12,%rcx\n"
	    "mov %ebx,%edx\n"
	    "mov %rbp,%rsi\n"
	    "mov %rbp,%rdi\n"
	    "call tcp_recvmsg_dmabuf\n"
	    "4: .byte 0x0f,0x1f,0x44,0x00,0x00\n"
	    "@AFTER@\n"
	    "mov %eax,%ecx\n"
	    "test %eax,%eax\n"
	    "js 3f\n"
	    "movslq %eax,%r8\n"
	    "mov %rbp,%rdi\n"
	    "call helper\n"
	    "3: mov %ecx,%eax\n"
	    "pop %r12\n"
	    "pop %rbp\n"
	    "pop %rbx\n"
	    "ret\n"
	    "5: @LABELED@\n"
	    "mov %eax,%ecx\n"
	    "jmp 3b\n"
	    ".pushsection __jump_table,\"aw\"\n"
	    ".globl __start___jump_table\n"
	    "__start___jump_table:\n"
	    ".long 4b - .\n"
	    ".long 5b - .\n"
	    ".quad 0\n"
	    ".globl __stop___jump_table\n"
	    "__stop___jump_table:\n"
	    ".popsection\n");
}

__attribute__((naked)) int other(struct sock *sk)
{
	asm("call __fentry__\n"
	    "@OTHER@\n"
	    "ret\n"
	    ".globl noproto\n"
	    "noproto: ret\n");
}

void _start(void)
{
}
EOF

# build NAME SED...: image NAME (NAME.elf, NAME.map) with the markers
# replaced by what the sed expressions give, the rest by the good code.
build() {
	local name=$1
	shift
	sed -e "s/^//" "$@" image.c.in | sed -e 's/@HEAD@/call __fentry__/' \
		-e 's/@R8A@/mov $16,%r8d/' -e 's/@AFTER@/nop/' \
		-e 's/@LABELED@/xor %esi,%esi/' -e 's/@OTHER@/nop/' >"$name.c"
	compile "$name"
}

# compile NAME: NAME.c to NAME.elf, with its BTF, and NAME.map.
compile() {
	local name=$1
	gcc -O2 -g -fcf-protection=none -fno-pic -c -o "$name.o" "$name.c" ||
		fail "$name: does not compile"
	ld -static -Ttext=0xffffffff81000000 -e _start -o "$name.elf" "$name.o" ||
		fail "$name: does not link"
	pahole --btf_encode_detached="$name.btf" "$name.elf" >/dev/null 2>&1 &&
		objcopy --add-section .BTF="$name.btf" "$name.elf" ||
		fail "$name: no BTF (pahole, objcopy)"
	nm -n "$name.elf" >"$name.map"
}

# expect NAME "FAIL: ..." SED...: the review of image NAME prints that line
# last and exits 1 ("" and exit 0 for the good image).
expect() {
	local name=$1 want=$2 out rc
	shift 2
	build "$name" "$@"
	out=$(python3 "$review" "$name.elf" "$name.map" tcp_recvmsg_dmabuf 2>&1)
	rc=$?
	if [ -z "$want" ]; then
		[ $rc = 0 ] || fail "$name: the good image fails the review: $out"
		echo "$out" | grep -qx 'reviewed: tcp_recvmsg_dmabuf' ||
			fail "$name: no reviewed line: $out"
		echo "# $name: passes"
		return
	fi
	[ $rc = 1 ] || fail "$name: exit $rc, not 1: $out"
	[ "$(echo "$out" | tail -1)" = "$want" ] ||
		fail "$name: wanted '$want', got: $out"
	echo "# $name: $want"
}

F=tcp_recvmsg_dmabuf
L=tcp_recvmsg_locked
expect good ""
out=$(python3 "$review" good.elf good.map $F)
echo "$out" | grep -qF "(c) $L+0x2b: rdi:64 rsi:64 rdx:32 rcx:64 r8:32 written on every path" ||
	fail "good: the (c) line names the wrong widths or site: $out"
echo "$out" | grep -qF "entered only at +0 by: $L (1 call)" ||
	fail "good: the callers line: $out"

# (c): one side of the branch writes r9 in place of r8, or only its low byte
expect c-unset "FAIL: (c) $L+0x2b: r8 holds 0 bits on some path, the argument needs 32" \
	-e 's/@R8A@/mov $16,%r9d/'
expect c-narrow "FAIL: (c) $L+0x2b: r8 holds 8 bits on some path, the argument needs 32" \
	-e 's/@R8A@/mov $16,%r8b; .byte 0x0f,0x1f,0x00/'
# (d): a leftover register, the flags, a leftover reached by the static branch
expect d-reg "FAIL: (d) $L+0x35: mov %rsi,%rdx reads rsi, which the call left" \
	-e 's/@AFTER@/mov %rsi,%rdx/'
expect d-flags "FAIL: (d) $L+0x35: setne %dl reads the flags the call left" \
	-e 's/@AFTER@/setne %dl/'
expect d-label "FAIL: (d) $L+0x4e: mov %rdi,%rsi reads rdi, which the call left" \
	-e 's/@LABELED@/mov %rdi,%rsi/'
expect d-noproto "FAIL: (d) $L+0x35: a call to noproto, whose prototype the BTF does not give, while rdi, rsi, rdx, rcx, r8, r9 may hold the call's leftovers" \
	-e 's/@AFTER@/call noproto/'
expect d-unknown "FAIL: $L+0x35: an instruction the model does not know: cpuid" \
	-e 's/@AFTER@/cpuid/'
# gcc-16's frame epilogue after the call: leave reads %rbp, no leftover
expect d-leave "" -e 's/@AFTER@/leave/'
# (e): the int read as 64 or 8 bits
expect e-wide "FAIL: (e) $L+0x35: mov %rax,%rdx reads the int the call returned as 64 bits" \
	-e 's/@AFTER@/mov %rax,%rdx/'
expect e-byte "FAIL: (e) $L+0x35: test %al,%al reads the int the call returned as 8 bits" \
	-e 's/@AFTER@/test %al,%al/'
# (a): an ENDBR, no fentry site, an entry past +0, the address in data
expect a-endbr "FAIL: (a) $F: starts with ENDBR: something may call it through a pointer" \
	-e 's/@HEAD@/endbr64/'
expect a-nofentry "FAIL: (a) $F: no fentry site at +0" \
	-e 's/@HEAD@/nop/'
expect a-midentry "FAIL: (a) $F: other+0x5 enters it at +0x5" \
	-e "s/@OTHER@/jmp $F+5/"
build a-pointer -e "s/@OTHER@/.pushsection .data\\\\n.quad $F\\\\n.popsection/"
out=$(python3 "$review" a-pointer.elf a-pointer.map $F 2>&1)
echo "$out" | tail -1 | grep -q "^FAIL: (a) $F: its address is at 0x[0-9a-f]* (.data, after " ||
	fail "a-pointer: a pointer to it in .data passes: $out"
echo "# a-pointer: $(echo "$out" | tail -1)"
# (a) in a KASAN build: the function's own stack frame record (magic,
# description, its address, stored to the stack) holds its address and
# passes; the same stores without the magic do not.
rec="movq \$0x41b58ab3,0x8(%rsp)\\\\nnop\\\\nmovq \$0,0x10(%rsp)\\\\nmovq \$$F,0x18(%rsp)"
expect a-asan "" -e "s/@HEAD@/call __fentry__\\\\n$rec/"
build a-asan-nomagic -e "s/@HEAD@/call __fentry__\\\\n${rec/0x41b58ab3/0x41b58ab4}/"
out=$(python3 "$review" a-asan-nomagic.elf a-asan-nomagic.map $F 2>&1)
echo "$out" | tail -1 | grep -q "^FAIL: (a) $F: its address is at 0x[0-9a-f]* (.text, after $F)" ||
	fail "a-asan-nomagic: its address stored without the frame's magic passes: $out"
echo "# a-asan-nomagic: $(echo "$out" | tail -1)"
# (b): a clone beside it
cp good.elf b-clone.elf
{ cat good.map; echo "ffffffff81000100 t $F.isra.0"; } >b-clone.map
out=$(python3 "$review" b-clone.elf b-clone.map $F 2>&1)
[ "$(echo "$out" | tail -1)" = "FAIL: (b) $F: GCC cloned it: $F.isra.0" ] ||
	fail "b-clone: a .isra clone passes: $out"
echo "# b-clone: $(echo "$out" | tail -1)"

# binary.py's other hooks, on a second image: tcp_v4_destroy_sock (an
# entry hook) and netdev_nl_bind_rx_doit (redirected, called through the
# netdev family's split ops, whose entry for NETDEV_CMD_BIND_RX holds
# it). Both start with ENDBR and have their fentry site after it; other
# calls the destroy directly, at +0, which an entry hook allows.
cat >hooks.c.in <<'EOF'
struct sock;
struct sk_buff;
struct genl_info;
struct nla_policy;

enum netdev_cmd { NETDEV_CMD_BIND_RX = 13, NETDEV_CMD_BIND_TX = 15 };
enum netdev_cmd netdev_last_cmd;	/* the enum in the BTF */

struct genl_split_ops {
	union {
		struct {
			int (*pre_doit)(struct sk_buff *, struct genl_info *);
			int (*doit)(struct sk_buff *, struct genl_info *);
			void (*post_doit)(struct sk_buff *, struct genl_info *);
		};
		struct {
			int (*start)(void *);
			int (*dumpit)(struct sk_buff *, void *);
			int (*done)(void *);
		};
	};
	const struct nla_policy *policy;
	unsigned int maxattr;
	unsigned char cmd;
	unsigned char internal_flags;
	unsigned char flags;
	unsigned char validate;
};

struct genl_family {
	int id;
	unsigned char n_split_ops;
	const struct genl_split_ops *split_ops;
};

__attribute__((naked)) void __fentry__(void)
{
	asm("ret");
}

__attribute__((naked)) void tcp_v4_destroy_sock(struct sock *sk)
{
	asm("@DESTROY_HEAD@\n"
	    "push %rbx\n"
	    "pop %rbx\n"
	    "ret\n");
}

__attribute__((naked)) int netdev_nl_bind_rx_doit(@DOIT_ARGS@)
{
	asm("@DOIT_HEAD@\n"
	    "xor %eax,%eax\n"
	    "ret\n");
}

__attribute__((naked)) int netdev_nl_bind_tx_doit(struct sk_buff *skb,
		struct genl_info *info)
{
	asm("endbr64\n"
	    "call __fentry__\n"
	    "xor %eax,%eax\n"
	    "@NEAR@\n"
	    "ret\n");
}

static const struct genl_split_ops netdev_nl_ops[] = {
	{ .cmd = NETDEV_CMD_BIND_TX, .doit = netdev_nl_bind_tx_doit },
	{ .cmd = @CMD@, .doit = (void *)netdev_nl_bind_rx_doit },
};

struct genl_family netdev_nl_family = {
	.split_ops = netdev_nl_ops,
	.n_split_ops = 2,
};

__attribute__((naked)) int other(struct sock *sk)
{
	asm("call __fentry__\n"
	    "call tcp_v4_destroy_sock\n"
	    "@ELSEWHERE@\n"
	    "ret\n");
}

void _start(void)
{
}
EOF

# build_hooks NAME SED...: as build, from hooks.c.in.
build_hooks() {
	local name=$1
	shift
	sed -e "s/^//" "$@" hooks.c.in |
		sed -e 's/@DESTROY_HEAD@/endbr64\\ncall __fentry__/' \
		-e 's/@DOIT_HEAD@/endbr64\\ncall __fentry__/' \
		-e 's/@DOIT_ARGS@/struct sk_buff *skb, struct genl_info *info/' \
		-e 's/@CMD@/NETDEV_CMD_BIND_RX/' -e 's/@ELSEWHERE@/nop/' \
		-e 's/@NEAR@/nop/' >"$name.c"
	compile "$name"
}

# hook NAME PART...: binary.py's review of image NAME, those parts only.
hook() {
	local name=$1
	shift
	PYTHONPATH=/src/tools/review python3 -m dxreview.binary \
		"$name.elf" "$name.map" "$@" 2>&1
}

# expect_hook NAME PART "FAIL: ..." SED...: binary.py's PART (destroy or
# doit) on image NAME, built with those seds, fails with that message.
expect_hook() {
	local name=$1 part=$2 want=$3 out rc
	shift 3
	build_hooks "$name" "$@"
	out=$(hook "$name" "$part")
	rc=$?
	[ $rc = 1 ] || fail "$name: exit $rc, not 1: $out"
	echo "$out" | grep -qxF -- "$part: $want" ||
		fail "$name: wanted '$part: $want', got: $out"
	echo "# $name: $want"
}

D=tcp_v4_destroy_sock
N=netdev_nl_bind_rx_doit
build_hooks hooks
out=$(hook hooks destroy doit) ||
	fail "hooks: the good image fails the review: $out"
echo "$out" | grep -qx "destroy: passes" && echo "$out" | grep -qx "doit: passes" ||
	fail "hooks: no passes lines: $out"
echo "$out" | grep -qF "(a) fentry at +4; 1 direct branches into it, none past it" ||
	fail "hooks: the destroy's entry line: $out"
echo "$out" | grep -qF "its address only in netdev_nl_family's ops (0x" ||
	fail "hooks: the doit's table line: $out"
echo "$out" | grep -qx "sizes: .*$D 0x[0-9a-f]*, $N 0x10" ||
	fail "hooks: the sizes line: $out"
echo "# hooks: passes"
# the destroy: no fentry site after its ENDBR; a jump past it, from a
# function that calls it too, and a short one (2 bytes, the assembler's
# choice that near) from one that does not
expect_hook destroy-nofentry destroy "FAIL: (a) $D: no fentry site at +0 or after its ENDBR" \
	-e 's/@DESTROY_HEAD@/endbr64\\nnop/'
expect_hook destroy-past destroy "FAIL: (a) $D: other+0xa enters it at +0x9, past its fentry site" \
	-e "s/@ELSEWHERE@/jmp $D+9/"
expect_hook destroy-near destroy "FAIL: (a) $D: netdev_nl_bind_tx_doit+0xb enters it at +0x9, past its fentry site" \
	-e "s/@NEAR@/jmp $D+9/"
# the doit: its address in .data, the entry of another command, a direct
# caller, no fentry site, another prototype, a clone
build_hooks doit-elsewhere -e "s/@ELSEWHERE@/.pushsection .data\\\\n.quad $N\\\\n.popsection/"
out=$(hook doit-elsewhere doit)
echo "$out" | grep -qx "doit: FAIL: (a) $N: its address is at 0x[0-9a-f]* (.data, after [a-z_]*), not in netdev_nl_family's ops" ||
	fail "doit-elsewhere: a pointer to it in .data passes: $out"
echo "# doit-elsewhere: $(echo "$out" | sed -n 's/^doit: //p')"
expect_hook doit-cmd doit "FAIL: (a) $N: netdev_nl_family's ops entry 1 holds it for cmd 15, not NETDEV_CMD_BIND_RX (13)" \
	-e 's/@CMD@/NETDEV_CMD_BIND_TX/'
expect_hook doit-direct doit "FAIL: (a) $N: other+0xa branches to it directly (+0x0)" \
	-e "s/@ELSEWHERE@/call $N/"
expect_hook doit-nofentry doit "FAIL: (a) $N: no fentry site at +0 or after its ENDBR" \
	-e 's/@DOIT_HEAD@/endbr64\\nnop/'
expect_hook doit-proto doit "FAIL: (p) $N: BTF gives int (struct sk_buff *, void *), not int (struct sk_buff *, struct genl_info *)" \
	-e 's/@DOIT_ARGS@/struct sk_buff *skb, void *info/'
cp hooks.elf doit-clone.elf
{ cat hooks.map; echo "ffffffff81000100 t $N.isra.0"; } >doit-clone.map
out=$(hook doit-clone doit)
echo "$out" | grep -qxF "doit: FAIL: (b) $N: GCC cloned it: $N.isra.0" ||
	fail "doit-clone: a .isra clone passes: $out"
echo "# doit-clone: $(echo "$out" | sed -n 's/^doit: //p')"
echo "tok-review: the good images, a KASAN frame record and leave pass; 24 planted defects each fail with their own message"
