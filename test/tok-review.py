#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The compiler's side of a token-array review (doc/token-array.md, "Which
# kernels"): reads a kernel image with its symbols (the -dbg package's
# vmlinux and System.map) and checks, for each function the hooks replace,
# what the body replacing it relies on:
#
#  (a) it is entered only at +0: no ENDBR (so no indirect caller), an
#      fentry site at +0, and every rel32 call or jump into it, found by
#      scanning the kernel text and confirmed by disassembly, targets +0;
#      nothing in its code or data holds its absolute address but
#      __mcount_loc (and, in a KASAN build, the PC of its own stack frame
#      record: stores of the magic, the frame's description and its
#      address, to the stack, for reports);
#  (b) GCC made no .isra/.constprop/.part clone of it (a .cold part only);
#  (c) every caller writes each argument register, at the width the
#      prototype gives it, on every path since its entry or its last call;
#  (d) after the call no caller reads a caller-saved register or the flags
#      before writing them;
#  (e) the return value is read as a 32-bit int (%eax, or sign-extended
#      from it), never as %rax, %ax or %al.
#
# Prototypes come from the image's BTF. An instruction this model does not
# know, an indirect jump, a call with no prototype while the call's
# leftovers are live, or a patched site (alternatives) in a caller fails
# the review: a person reads it, and the model learns it.
#
# usage: tok-review.py [--entry] VMLINUX SYSTEM_MAP [FUNC...]
# Prints one line per check and, with --entry, the sizes of the
# tokens-reviewed.h entry (the two functions' and tcp_v4_destroy_sock's).
# Exits 1 when a check fails.
import bisect
import re
import struct
import subprocess
import sys

FUNCS = ['tcp_recvmsg_dmabuf', 'sock_devmem_dontneed']
DESTROY = 'tcp_v4_destroy_sock'
ENDBR = b'\xf3\x0f\x1e\xfa'
NOP5 = b'\x0f\x1f\x44\x00\x00'


class Fail(Exception):
    pass


# --- the image ------------------------------------------------------------

class Image:
    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b'\x7fELF' or d[4] != 2:
            raise Fail('%s: not a 64-bit ELF file' % path)
        shoff, = struct.unpack_from('<Q', d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
        raw = [struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize)
               for i in range(shnum)]
        stroff = raw[shstrndx][4]
        self.sections = []
        self.named = {}
        for name, typ, flags, addr, off, size in raw:
            end = d.index(b'\0', stroff + name)
            sname = d[stroff + name:end].decode()
            self.named[sname] = (off, size)
            # SHF_ALLOC, with file bytes (not NOBITS)
            if flags & 2 and typ != 8 and size:
                self.sections.append((sname, addr, off, size, flags & 4))

    def section(self, addr):
        for s in self.sections:
            if s[1] <= addr < s[1] + s[3]:
                return s
        return None

    def read(self, addr, n):
        s = self.section(addr)
        if not s or addr + n > s[1] + s[3]:
            raise Fail('%#x: not in the image' % addr)
        o = s[2] + addr - s[1]
        return self.data[o:o + n]

    def btf(self):
        if '.BTF' not in self.named:
            raise Fail('the image has no .BTF section')
        off, size = self.named['.BTF']
        return self.data[off:off + size]


class Symbols:
    def __init__(self, path):
        self.syms = []
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3:
                    self.syms.append((int(p[0], 16), p[1], p[2]))
        self.syms.sort()
        self.addrs = [s[0] for s in self.syms]
        self.by_name = {}
        for a, t, n in self.syms:
            self.by_name.setdefault(n, []).append(a)

    def addr(self, name):
        a = self.by_name.get(name)
        if not a:
            raise Fail('%s: not in the symbol table' % name)
        if len(a) > 1:
            raise Fail('%s: %d symbols of that name' % (name, len(a)))
        return a[0]

    def extent(self, addr):
        """The symbol holding @addr: (name, start, end)."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return None
        start = self.addrs[i]
        k = bisect.bisect_left(self.addrs, start)
        j = bisect.bisect_right(self.addrs, start)
        # of the names at one address, the function's, not its __pfx_
        names = [s[2] for s in self.syms[k:j]]
        name = next((n for n in names if not n.startswith('__pfx_')), names[0])
        end = self.addrs[j] if j < len(self.addrs) else start
        return name, start, end


# --- BTF prototypes -------------------------------------------------------

KIND_EXTRA = {1: 4, 3: 12, 4: 12, 5: 12, 6: 8, 13: 8, 14: 4, 15: 12, 17: 4,
              19: 12}
VLEN_KINDS = {4, 5, 6, 13, 15, 19}


class BTF:
    def __init__(self, blob):
        magic, ver, flags, hlen = struct.unpack_from('<HBBI', blob, 0)
        if magic != 0xeb9f:
            raise Fail('.BTF: bad magic %#x' % magic)
        toff, tlen, soff, slen = struct.unpack_from('<IIII', blob, 8)
        self.strs = blob[hlen + soff:hlen + soff + slen]
        self.types = [None]
        p, end = hlen + toff, hlen + toff + tlen
        while p < end:
            name, info, st = struct.unpack_from('<III', blob, p)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            q = p + 12
            extra = KIND_EXTRA.get(kind, 0)
            members = []
            if kind == 13:
                members = [struct.unpack_from('<II', blob, q + 8 * k)
                           for k in range(vlen)]
            q += extra * (vlen if kind in VLEN_KINDS else 1)
            self.types.append((kind, name, st, members))
            p = q
        self.funcs = {}
        for t in self.types[1:]:
            if t[0] == 12:
                self.funcs.setdefault(self.name(t[1]), []).append(t[2])

    def name(self, off):
        return self.strs[off:self.strs.index(b'\0', off)].decode()

    def size(self, tid):
        """Size in bytes of type @tid (0: void), qualifiers and typedefs
        looked through; the kind as a second value."""
        while True:
            if tid == 0:
                return 0, 0
            kind, name, st, members = self.types[tid]
            if kind in (8, 9, 10, 11, 18):
                tid = st
                continue
            if kind == 2:
                return 8, kind
            if kind in (1, 4, 5, 6, 16, 19):
                return st, kind
            if kind == 7:
                raise Fail('BTF: incomplete type %s' % self.name(name))
            raise Fail('BTF: no size for kind %d' % kind)

    def proto(self, fname):
        """(argument registers with the bytes each carries, return bytes)"""
        ids = self.funcs.get(fname)
        if not ids:
            return None
        protos = set()
        for i in ids:
            kind, _, ret, params = self.types[i]
            protos.add((ret, tuple(p[1] for p in params)))
        if len(protos) > 1:
            return None         # two static functions of one name
        ret, params = protos.pop()
        regs, slots = [], ['rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9']
        for tid in params:
            size, kind = self.size(tid)
            if kind == 16:
                raise Fail('%s: a floating-point argument' % fname)
            if size > 16:
                continue        # in memory
            if size > 8 and kind in (4, 5):
                # two eightbytes; the second carries size - 8 bytes
                if len(slots) < 2:
                    break
                regs.append((slots.pop(0), 8))
                regs.append((slots.pop(0), size - 8))
                continue
            if not slots:
                break
            regs.append((slots.pop(0), size))
        return regs, self.size(ret)[0]


# --- instructions ---------------------------------------------------------

GPR = ['rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rbp', 'rsp'] + \
      ['r%d' % i for i in range(8, 16)]
REG = {}
for r in GPR:
    REG[r] = (r, 64)
for l in 'abcd':
    REG['e%sx' % l] = ('r%sx' % l, 32)
    REG['%sx' % l] = ('r%sx' % l, 16)
    REG['%sl' % l] = ('r%sx' % l, 8)
    REG['%sh' % l] = ('r%sx' % l, -8)      # bits 8..15
for r in ('si', 'di', 'bp', 'sp'):
    REG['e' + r] = ('r' + r, 32)
    REG[r] = ('r' + r, 16)
    REG[r + 'l'] = ('r' + r, 8)
for i in range(8, 16):
    REG['r%dd' % i] = ('r%d' % i, 32)
    REG['r%dw' % i] = ('r%d' % i, 16)
    REG['r%db' % i] = ('r%d' % i, 8)
CALLER_SAVED = ['rax', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11']
RET_THUNKS = ('__x86_return_thunk', '__pi___x86_return_thunk')

# mnemonic families (AT&T, objdump's spelling)
JCC = set('j' + c for c in ('o no b c nae ae nb nc e z ne nz be na a nbe s ns '
                            'p pe np po l nge ge nl le ng g nle').split())
CMOV = set('cmov' + c[1:] for c in JCC)
SETCC = set('set' + c[1:] for c in JCC)
SFX = 'bwlq'
MOVES = {'mov', 'movabs', 'movzbl', 'movzbw', 'movzwl', 'movzbq', 'movzwq',
         'movsbl', 'movsbw', 'movswl', 'movsbq', 'movswq', 'movslq', 'lea'}
ALU = {'add', 'sub', 'and', 'or', 'xor', 'adc', 'sbb', 'shl', 'shr', 'sar',
       'sal', 'rol', 'ror', 'imul', 'bts', 'btr', 'btc'}
CMPS = {'cmp', 'test', 'bt'}
UNARY = {'neg': True, 'not': False, 'inc': None, 'dec': None, 'bswap': False}
NOPS = {'nop', 'nopl', 'nopw', 'int3', 'endbr64', 'lfence', 'mfence',
        'sfence', 'pause', 'clac', 'stac'}
PREFIXES = {'lock', 'rep', 'repz', 'repe', 'repnz', 'repne', 'notrack',
            'cs', 'ds', 'ss', 'es', 'data16', 'bnd', 'rex', 'rex.W'}
FLAG_READERS = {'adc', 'sbb'}


def base(mn):
    """A sized mnemonic's family: movl -> mov, cmpq -> cmp."""
    for fam in (MOVES, ALU, CMPS, set(UNARY), {'xchg', 'xadd', 'cmpxchg',
                                                'push', 'pop'}):
        if mn in fam:
            return mn
        if mn[-1] in SFX and mn[:-1] in fam:
            return mn[:-1]
    return mn


def split_ops(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and not depth:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Op:
    def __init__(self, text):
        self.text = text
        self.reg = self.mem = self.imm = self.target = None
        self.addr_regs = []
        t = text
        if t.startswith('*'):
            self.indirect = True
            t = t[1:]
        else:
            self.indirect = False
        m = re.match(r'^%([a-z0-9]+):(.*)$', t)
        if m:                           # a segment: %gs:0x28
            t = m.group(2)
        if t.startswith('%'):
            if t[1:] not in REG:
                raise Fail('register %s' % t)
            self.reg = REG[t[1:]]
        elif t.startswith('$'):
            self.imm = t[1:]
        elif re.match(r'^[0-9a-f]+ <.*>$', t):
            self.target = int(t.split()[0], 16)
        else:
            self.mem = t
            m = re.search(r'\(([^)]*)\)', t)
            if m:
                for r in m.group(1).split(','):
                    r = r.strip()
                    if r.startswith('%') and r[1:] != 'rip':
                        self.addr_regs.append(REG[r[1:]])


class Insn:
    def __init__(self, addr, mn, ops, text):
        self.addr, self.mn, self.text = addr, mn, text
        self.ops = [Op(o) for o in split_ops(ops)] if ops else []
        self.next = None
        self.callee = None
        m = re.search(r'<([^>+]+)(\+0x[0-9a-f]+)?>', ops or '')
        if m and not m.group(2):
            self.callee = m.group(1)


LINE = re.compile(r'^\s*([0-9a-f]+):\s+(.*)$')


def disasm(vmlinux, start, end):
    """Instructions of [start, end), in order: {addr: Insn}."""
    out = subprocess.run(
        ['objdump', '-d', '-w', '--no-show-raw-insn', '-M', 'att',
         '--start-address=%#x' % start, '--stop-address=%#x' % end, vmlinux],
        check=True, capture_output=True, text=True).stdout
    insns = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        text = m.group(2).split('#')[0].strip()
        words = text.split(None, 1)
        while words and words[0] in PREFIXES and len(words) > 1:
            words = words[1].split(None, 1)
        if not words:
            continue
        if words[0] == '(bad)':
            raise Fail('%#x: objdump cannot decode it' % int(m.group(1), 16))
        ops = words[1].strip() if len(words) > 1 else ''
        insns.append(Insn(int(m.group(1), 16), words[0], ops,
                          (words[0] + ' ' + ops).strip()))
    for a, b in zip(insns, insns[1:]):
        a.next = b.addr
    if insns:
        insns[-1].next = end
    return {i.addr: i for i in insns}


ASAN_FRAME_MAGIC = 0x41b58ab3


def asan_frame_pcs(vmlinux, start, end):
    """Where [start, end) stores its own address as the PC of its KASAN
    stack frame record (a KASAN build): the addresses of those
    immediates. The record is three words, magic, description and PC,
    stored by `movq $MAGIC,D(%rsp)`, `movq $DESC,D+8(%rsp)` and
    `movq $START,D+16(%rsp)` among the next 16 instructions, with %rsp
    unchanged in between. It is data for reports, never a branch."""
    insns = sorted(disasm(vmlinux, start, end).values(), key=lambda i: i.addr)
    store = re.compile(r'^movq \$0x([0-9a-f]+),(0x[0-9a-f]+)?\(%rsp\)$')
    moves_rsp = re.compile(r'^(push|pop|call|enter|leave)|,%rsp$')
    at = set()
    for k, i in enumerate(insns):
        m = store.match(i.text)
        if not m or int(m.group(1), 16) != ASAN_FRAME_MAGIC:
            continue
        d = int(m.group(2) or '0', 16)
        desc = False
        for j in insns[k + 1:k + 17]:
            if moves_rsp.search(j.text):
                break
            m = store.match(j.text)
            if not m:
                continue
            v, off = int(m.group(1), 16), int(m.group(2) or '0', 16)
            if off == d + 8:
                desc = True
            elif off == d + 16 and v == start and desc:
                # movq $imm32,disp(%rsp): the imm32 is its last 4 bytes
                at.add(j.next - 4)
                break
    return at


# --- what an instruction reads and writes ---------------------------------

def effects(i):
    """(reads, writes, flags) of @i: reads and writes are lists of
    (reg, width); flags is 'r' (reads), 'w' (writes all), 'rw', '' or 'p'
    (writes some). A call or jump out gets kind 'call', 'ret' or 'tail'
    as a fourth value with its argument registers. Fails on what the
    model does not know."""
    mn, ops = i.mn, i.ops
    fam = base(mn)
    reads, writes = [], []
    for o in ops:
        reads.extend((r, 64) for r in o.addr_regs)
    if mn in NOPS or (mn == 'xchg' and i.text.endswith('%ax,%ax')):
        return reads, writes, '', None
    if mn in ('ret', 'retq') or (mn == 'jmp' and i.callee in RET_THUNKS):
        return reads, writes, '', ('ret', None)
    if mn in ('ud2', 'hlt'):
        return reads, writes, '', ('stop', None)
    if mn in ('call', 'jmp'):
        o = ops[0]
        if o.indirect:
            if mn == 'jmp':
                raise Fail('an indirect jump')
            if o.reg:
                reads.append((o.reg[0], 64))
            return reads, writes, '', ('call', None)
        if mn == 'call':
            return reads, writes, '', ('call', i.callee)
        return reads, writes, '', ('jmp', i.callee)
    if mn in JCC:
        return reads, writes, 'r', ('jcc', None)
    regs = [o.reg for o in ops]

    def rd(k):
        if regs[k]:
            reads.append(regs[k])

    def wr(k):
        if regs[k]:
            writes.append(regs[k])

    if fam in MOVES:
        if fam != 'lea':
            rd(0)
        wr(1)
        return reads, writes, '', None
    if mn in CMOV:
        rd(0)
        rd(1)
        wr(1)
        return reads, writes, 'r', None
    if mn in SETCC:
        wr(0)
        return reads, writes, 'r', None
    if fam in ALU:
        if len(ops) == 1:                       # shl %eax: by one
            rd(0)
            wr(0)
        elif len(ops) == 3:                     # imul $k,%src,%dst
            rd(1)
            wr(2)
        elif fam in ('xor', 'sub') and regs[0] and regs[0] == regs[1]:
            wr(1)                               # zeroing: reads nothing
        elif fam == 'sbb' and regs[0] and regs[0] == regs[1]:
            wr(1)
        else:
            rd(0)
            rd(1)
            wr(1)
        by_cl = fam in ('shl', 'shr', 'sar', 'sal', 'rol', 'ror') and \
            len(ops) == 2 and regs[0] and regs[0][0] == 'rcx'
        fl = 'p' if by_cl else 'w'
        if fam in FLAG_READERS:
            fl = 'r' + fl
        return reads, writes, fl, None
    if fam in CMPS:
        rd(0)
        if len(ops) > 1:
            rd(1)
        return reads, writes, 'w', None
    if fam in UNARY:
        rd(0)
        wr(0)
        fl = {True: 'w', False: '', None: 'p'}[UNARY[fam]]
        return reads, writes, fl, None
    if fam in ('xchg', 'xadd'):        # both operands read and written
        rd(0)
        rd(1)
        wr(0)
        wr(1)
        return reads, writes, 'w' if fam == 'xadd' else '', None
    if fam == 'cmpxchg':
        rd(0)
        rd(1)
        wr(1)
        reads.append(('rax', 64))
        writes.append(('rax', 64))
        return reads, writes, 'w', None
    if fam == 'push':
        rd(0)
        return reads, writes, '', None
    if fam == 'pop':
        wr(0)
        return reads, writes, '', None
    if mn in ('cltq', 'cdqe'):
        return reads + [('rax', 32)], [('rax', 64)], '', None
    if mn in ('cltd', 'cdq'):
        return reads + [('rax', 32)], [('rdx', 32)], '', None
    if mn in ('cqto', 'cqo'):
        return reads + [('rax', 64)], [('rdx', 64)], '', None
    raise Fail('an instruction the model does not know: %s' % mn)


# --- the checks -----------------------------------------------------------

class Caller:
    """A caller's code: its symbol and its .cold part, one graph."""

    def __init__(self, vmlinux, syms, name):
        self.name = name
        self.insns = {}
        self.parts = []
        for n in (name, name + '.cold'):
            if n not in syms.by_name:
                continue
            a = syms.addr(n)
            _, s, e = syms.extent(a)
            self.parts.append((n, s, e))
            self.insns.update(disasm(vmlinux, s, e))
        self.entry = syms.addr(name)

    def succs(self, i, kind, labels):
        if kind and kind[0] in ('ret', 'stop', 'tail'):
            return []
        out = []
        if kind and kind[0] == 'jcc':
            out = [i.ops[0].target, i.next]
        elif kind and kind[0] == 'jmp':
            t = i.ops[0].target
            out = [t] if t in self.insns else []
        else:
            out = [i.next]
        out += labels.get(i.addr, [])
        return [a for a in out if a in self.insns]


def is_tail(i, kind, caller):
    return kind and kind[0] == 'jmp' and i.ops[0].target not in caller.insns


def jump_labels(img, syms, ranges):
    """Static branches whose site is in @ranges: {site: [target]}."""
    out = {}
    try:
        s, e = syms.addr('__start___jump_table'), syms.addr('__stop___jump_table')
    except Fail:
        return out
    blob = img.read(s, e - s) if e > s else b''
    for k in range(0, len(blob), 16):
        code, target = struct.unpack_from('<ii', blob, k)
        code += s + k
        target += s + k + 4
        if any(a <= code < b for _, a, b in ranges):
            out.setdefault(code, []).append(target)
    return out


def alt_sites(img, syms, ranges):
    try:
        s, e = syms.addr('__alt_instructions'), syms.addr('__alt_instructions_end')
    except Fail:
        return []
    blob = img.read(s, e - s) if e > s else b''
    out = []
    for k in range(0, len(blob) - 13, 14):
        instr, = struct.unpack_from('<i', blob, k)
        instr += s + k
        if any(a <= instr < b for _, a, b in ranges):
            out.append(instr)
    return out


def located(fn, caller, i, *args):
    try:
        return fn(i, *args)
    except Fail as e:
        raise Fail('%s+%#x: %s' % (caller.name, i.addr - caller.entry, e))


def check_args(caller, site, need, entry_regs, labels):
    """(c): a must-analysis of the bytes written per register."""
    TOP = None
    state = {a: TOP for a in caller.insns}
    init = {r: 0 for r in GPR}
    for r, w in entry_regs:
        init[r] = max(init[r], w)
    for r in ('rsp', 'rbx', 'rbp', 'r12', 'r13', 'r14', 'r15'):
        init[r] = 64
    state[caller.entry] = init
    work = [caller.entry]
    while work:
        a = work.pop()
        i = caller.insns[a]
        st = dict(state[a])
        reads, writes, fl, kind = located(effects, caller, i)
        if a == site:
            for r, w in need:
                if st[r] < w * 8:
                    raise Fail('(c) %s+%#x: %s holds %d bits on some path, '
                               'the argument needs %d' %
                               (caller.name, a - caller.entry, r, st[r], w * 8))
            return
        for r, w in writes:
            st[r] = 64 if w >= 32 else (st[r] if w < 0 else max(st[r], w))
        if kind and kind[0] in ('call',) or is_tail(i, kind, caller):
            for r in CALLER_SAVED:
                st[r] = 0
        if is_tail(i, kind, caller):
            continue
        for b in caller.succs(i, kind, labels):
            old = state[b]
            new = st if old is TOP else {r: min(old[r], st[r]) for r in GPR}
            if new != old:
                state[b] = new
                work.append(b)
    raise Fail('(c) %s: the call at %#x is not reachable from its entry' %
               (caller.name, site))


def check_after(caller, site, caller_ret, protos, labels):
    """(d) and (e): a may-analysis of the call's leftovers: per register
    the low bits written since the call; RET marks %rax holding the
    callee's int."""
    RET = 'ret'
    start = caller.insns[site].next
    init = {r: 0 for r in CALLER_SAVED}
    init['rax'] = RET
    init['flags'] = 0
    state = {start: init}
    work = [start]
    where = lambda a: '%s+%#x' % (caller.name, a - caller.entry)
    while work:
        a = work.pop()
        i = caller.insns[a]
        st = dict(state[a])
        reads, writes, fl, kind = located(effects, caller, i)
        is_call = kind and kind[0] == 'call' or is_tail(i, kind, caller)
        if is_call:
            callee = kind[1]
            p = protos.proto(callee) if callee else None
            if callee in ('__fentry__',):
                p = ([], 0)
            if p is None:
                live = [r for r in ('rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9')
                        if st[r] != 64]
                if live:
                    raise Fail('(d) %s: a call to %s, whose prototype the '
                               'BTF does not give, while %s may hold the '
                               'call\'s leftovers' %
                               (where(a), callee or 'a pointer',
                                ', '.join(live)))
            else:
                reads += [(r, w * 8) for r, w in p[0]]
        if kind and kind[0] == 'ret' and caller_ret:
            reads.append(('rax', caller_ret * 8))
        if 'r' in fl and st['flags'] == 0:
            raise Fail('(d) %s: %s reads the flags the call left' %
                       (where(a), i.text))
        for r, w in reads:
            if r not in st:
                continue
            if st[r] == RET:
                if w != 32:
                    raise Fail('(e) %s: %s reads the int the call returned '
                               'as %d bits' % (where(a), i.text, abs(w)))
                continue
            if abs(w) > st[r] or (w < 0 and st[r] < 16):
                raise Fail('(d) %s: %s reads %s, which the call left' %
                           (where(a), i.text, r))
        for r, w in writes:
            if r in st:
                if w >= 32:
                    st[r] = 64
                elif st[r] != RET and w > 0:
                    st[r] = max(st[r], w)
        if fl in ('w', 'rw'):
            st['flags'] = 64
        if is_call:
            for r in CALLER_SAVED:
                st[r] = 64
            st['flags'] = 64
        if all(v == 64 for v in st.values()):
            continue
        if is_tail(i, kind, caller):
            continue
        for b in caller.succs(i, kind, labels):
            old = state.get(b)
            if old is None:
                new = st
            else:
                new = {}
                for r in st:
                    x, y = old[r], st[r]
                    if RET in (x, y):
                        new[r] = RET if x == y else 0
                    else:
                        new[r] = min(x, y)
            if new != old:
                state[b] = new
                work.append(b)
    return len(state)


def scan_rel32(img, lo, hi):
    """Every E8/E9/0F8x rel32 in executable sections whose target falls in
    [lo, hi): (site, target, opcode length)."""
    hits = []
    for name, addr, off, size, execu in img.sections:
        if not execu:
            continue
        d = img.data[off:off + size]
        for op, n in ((b'\xe8', 1), (b'\xe9', 1)):
            p = d.find(op)
            while p >= 0:
                if p + 5 <= size:
                    t = addr + p + 5 + struct.unpack_from('<i', d, p + 1)[0]
                    if lo <= t < hi:
                        hits.append((addr + p, t, n))
                p = d.find(op, p + 1)
        p = d.find(b'\x0f')
        while p >= 0:
            if p + 6 <= size and 0x80 <= d[p + 1] <= 0x8f:
                t = addr + p + 6 + struct.unpack_from('<i', d, p + 2)[0]
                if lo <= t < hi:
                    hits.append((addr + p, t, 2))
            p = d.find(b'\x0f', p + 1)
    return hits


def review(vmlinux, sysmap, funcs, out):
    img = Image(vmlinux)
    syms = Symbols(sysmap)
    protos = BTF(img.btf())
    sizes = {}
    for f in funcs:
        fa = syms.addr(f)
        name, s, e = syms.extent(fa)
        size = e - fa
        sizes[f] = size
        out('%s: %#x bytes at %#x' % (f, size, fa))
        # (b)
        clones = [n for n in syms.by_name
                  if n.startswith(f + '.') and n != f + '.cold']
        if clones:
            raise Fail('(b) %s: GCC cloned it: %s' % (f, ', '.join(sorted(clones))))
        out('  (b) no clone; parts: %s' %
            ', '.join(n for n in (f, f + '.cold') if n in syms.by_name))
        # (a) the entry
        head = img.read(fa, 5)
        if head[:4] == ENDBR:
            raise Fail('(a) %s: starts with ENDBR: something may call it '
                       'through a pointer' % f)
        fentry = syms.by_name.get('__fentry__', [None])[0]
        if head != NOP5 and not (head[0] == 0xe8 and fentry and
                                 fa + 5 + struct.unpack_from('<i', head, 1)[0] == fentry):
            raise Fail('(a) %s: no fentry site at +0' % f)
        cold = syms.by_name.get(f + '.cold', [None])[0]
        own = [(fa, e)]
        if cold:
            own.append(syms.extent(cold)[1:])
        callers = {}
        for site, t, n in scan_rel32(img, fa, e):
            holder = syms.extent(site)
            if not holder:
                continue
            hname, hs, he = holder
            insns = disasm(vmlinux, hs, he)
            i = insns.get(site)
            if i is None or i.ops == [] or i.ops[0].target != t:
                continue                # bytes inside another instruction
            if any(a <= site < b for a, b in own):
                if t == fa:
                    raise Fail('(a) %s: its own code jumps to its start' % f)
                continue
            if t != fa:
                raise Fail('(a) %s: %s+%#x enters it at +%#x' %
                           (f, hname, site - hs, t - fa))
            if i.mn not in ('call', 'jmp'):
                raise Fail('(a) %s: %s+%#x branches to it conditionally' %
                           (f, hname, site - hs))
            base_name = hname[:-5] if hname.endswith('.cold') else hname
            callers.setdefault(base_name, []).append((site, i.mn))
        if not callers:
            raise Fail('(a) %s: no direct caller found' % f)
        # absolute addresses: only __mcount_loc may hold one
        mc = (syms.by_name.get('__start_mcount_loc', [0])[0],
              syms.by_name.get('__stop_mcount_loc', [0])[0])
        pat = struct.pack('<I', fa & 0xffffffff)
        asan = asan_frame_pcs(vmlinux, fa, e)
        for name, addr, off, size, execu in img.sections:
            d = img.data[off:off + size]
            p = d.find(pat)
            while p >= 0:
                va = addr + p
                if not (mc[0] <= va < mc[1]) and va not in asan:
                    raise Fail('(a) %s: its address is at %#x (%s, after %s)' %
                               (f, va, name, (syms.extent(va) or ('?',))[0]))
                p = d.find(pat, p + 1)
        out('  (a) no ENDBR, fentry at +0, entered only at +0 by: %s' %
            ', '.join('%s (%d %s)' % (c, len(v), v[0][1])
                      for c, v in sorted(callers.items())))
        need = protos.proto(f)
        if need is None:
            raise Fail('%s: no single BTF prototype' % f)
        ret = need[1]
        if ret != 4:
            raise Fail('%s: returns %d bytes, not an int' % (f, ret))
        for cname, sites in sorted(callers.items()):
            cp = protos.proto(cname)
            if cp is None:
                raise Fail('%s: no single BTF prototype' % cname)
            c = Caller(vmlinux, syms, cname)
            labels = jump_labels(img, syms, c.parts)
            alts = alt_sites(img, syms, c.parts)
            if alts:
                raise Fail('%s: patched sites (alternatives) at %s' %
                           (cname, ', '.join('%#x' % a for a in alts)))
            for site, mn in sites:
                if mn != 'call':
                    raise Fail('(a) %s: a tail call from %s' % (f, cname))
                check_args(c, site, need[0], [(r, w * 8) for r, w in cp[0]],
                           labels)
                n = check_after(c, site, cp[1], protos, labels)
                out('  (c) %s+%#x: %s written on every path; '
                    '(d) (e) %d instructions after it read no leftover and '
                    'the int as %%eax (%d instructions, %d static branches)' %
                    (cname, site - c.entry,
                     ' '.join('%s:%d' % (r, w * 8) for r, w in need[0]), n,
                     len(c.insns), sum(map(len, labels.values()))))
    return sizes


def main(argv):
    entry = '--entry' in argv
    args = [a for a in argv if a != '--entry']
    if len(args) < 2:
        print('usage: tok-review.py [--entry] VMLINUX SYSTEM_MAP [FUNC...]',
              file=sys.stderr)
        return 2
    funcs = args[2:] or FUNCS
    try:
        sizes = review(args[0], args[1], funcs, print)
    except Fail as e:
        print('FAIL: %s' % e)
        return 1
    except (OSError, subprocess.CalledProcessError) as e:
        print('FAIL: %s' % e)
        return 1
    if entry:
        # the entry's sizes, in tokens-reviewed.h's order; the close hook
        # only watches tcp_v4_destroy_sock's entry, so its size is all it
        # takes from the image
        syms = Symbols(args[1])
        name, s, e = syms.extent(syms.addr(DESTROY))
        sizes[DESTROY] = e - syms.addr(DESTROY)
        print('entry sizes: ' + ', '.join(
            '%#x' % sizes[f] for f in FUNCS + [DESTROY] if f in sizes))
    print('reviewed: %s' % ', '.join(funcs))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
