# SPDX-License-Identifier: GPL-2.0
#
# The review's instruction model: objdump's disassembly of a range
# (disasm), KASAN's stack frame records in it (asan_frame_pcs), and what
# each instruction reads and writes (effects).
import re
import subprocess

from .image import Fail

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
    if mn in ('leave', 'leaveq'):
        # the frame's epilogue (gcc-16 keeps a frame pointer in
        # sk_setsockopt): %rsp from %rbp, then %rbp popped
        return reads + [('rbp', 64)], [('rsp', 64), ('rbp', 64)], '', None
    if mn in ('cltq', 'cdqe'):
        return reads + [('rax', 32)], [('rax', 64)], '', None
    if mn in ('cltd', 'cdq'):
        return reads + [('rax', 32)], [('rdx', 32)], '', None
    if mn in ('cqto', 'cqo'):
        return reads + [('rax', 64)], [('rdx', 64)], '', None
    raise Fail('an instruction the model does not know: %s' % mn)
