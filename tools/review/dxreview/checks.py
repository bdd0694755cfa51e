# SPDX-License-Identifier: GPL-2.0
#
# The checks (a) to (e) over a kernel image (a redirect's: check_redirect)
# and the parts binary.py's other checks share: Kernel, the image read
# once; fentry_offset, direct_branches, address_holders.
import bisect
import struct

from .image import BTF, ENDBR, NOP5, Fail, Image, Symbols
from .insn import CALLER_SAVED, GPR, asan_frame_pcs, disasm, effects

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


class Kernel:
    """One image read once: its bytes, symbols and BTF, for every check."""

    def __init__(self, vmlinux, sysmap):
        self.vmlinux = vmlinux
        self.img = Image(vmlinux)
        self.syms = Symbols(sysmap)
        self.protos = BTF(self.img.btf())

    def size(self, f):
        """@f's size as kallsyms gives it: up to the next symbol."""
        fa = self.syms.addr(f)
        return self.syms.extent(fa)[2] - fa


def check_clone(k, f, out):
    """(b): a clone's callers would run code the hook never sees."""
    clones = [n for n in k.syms.by_name
              if n.startswith(f + '.') and n != f + '.cold']
    if clones:
        raise Fail('(b) %s: GCC cloned it: %s' %
                   (f, ', '.join(sorted(clones))))
    out('  (b) no clone; parts: %s' %
        ', '.join(n for n in (f, f + '.cold') if n in k.syms.by_name))


def fentry_offset(k, f):
    """Where @f's fentry site is: 0, or 4 after an ENDBR; None if it has
    none there (ftrace hooks that call, nothing else)."""
    fa = k.syms.addr(f)
    off = 4 if k.img.read(fa, 4) == ENDBR else 0
    site = k.img.read(fa + off, 5)
    if site == NOP5:
        return off
    fentry = k.syms.by_name.get('__fentry__', [None])[0]
    if site[0] == 0xe8 and fentry and \
            fa + off + 5 + struct.unpack_from('<i', site, 1)[0] == fentry:
        return off
    return None


def own_ranges(k, f):
    fa = k.syms.addr(f)
    own = [(fa, k.syms.extent(fa)[2])]
    cold = k.syms.by_name.get(f + '.cold', [None])[0]
    if cold:
        own.append(k.syms.extent(cold)[1:])
    return own


REL8_REACH = 0x82     # a 2-byte branch reaches -126..+129 from its start


def near_holders(k, lo, hi):
    """The symbols whose code lies within a rel8 branch's reach of
    [lo, hi): the assembler makes a branch to a symbol in the same
    section that near a short one, which no rel32 scan finds."""
    syms = k.syms
    first = syms.extent(lo - REL8_REACH)
    starts = {first[1]} if first else set()
    j = bisect.bisect_left(syms.addrs, lo - REL8_REACH)
    while j < len(syms.addrs) and syms.addrs[j] < hi + REL8_REACH:
        starts.add(syms.addrs[j])
        j += 1
    return [syms.extent(a) for a in sorted(starts)]


def direct_branches(k, f):
    """Every call or jump into @f from outside it, rel32 (found by
    scanning the kernel text) or rel8 (in the code around it), confirmed
    by disassembly: [(site, target, mnemonic, holder, holder's start)].
    Its own code jumping to its start fails (a loop through the hook)."""
    fa = k.syms.addr(f)
    own = own_ranges(k, f)
    hi = own[0][1]
    holders = {}
    for site, t, n in scan_rel32(k.img, fa, hi):
        holder = k.syms.extent(site)
        if holder:
            holders[holder[1]] = holder
    for holder in near_holders(k, fa, hi):
        sec = k.img.section(holder[1])
        if sec and sec[4]:
            holders[holder[1]] = holder
    hits = []
    for hname, hs, he in holders.values():
        for i in disasm(k.vmlinux, hs, he).values():
            t = i.ops[0].target if i.ops else None
            if t is None or not fa <= t < hi:
                continue
            if any(a <= i.addr < b for a, b in own):
                if t == fa:
                    raise Fail('(a) %s: its own code jumps to its start' % f)
                continue
            hits.append((i.addr, t, i.mn, hname, hs))
    return sorted(hits)


def address_holders(k, f):
    """Where the image holds @f's absolute address (its low 32 bits: an
    imm32 or a pointer), but __mcount_loc and KASAN frame records:
    [(address, section)]."""
    fa = k.syms.addr(f)
    syms = k.syms
    mc = (syms.by_name.get('__start_mcount_loc', [0])[0],
          syms.by_name.get('__stop_mcount_loc', [0])[0])
    pat = struct.pack('<I', fa & 0xffffffff)
    asan = asan_frame_pcs(k.vmlinux, fa, own_ranges(k, f)[0][1])
    found = []
    for name, addr, off, size, execu in k.img.sections:
        d = k.img.data[off:off + size]
        p = d.find(pat)
        while p >= 0:
            va = addr + p
            if not (mc[0] <= va < mc[1]) and va not in asan:
                found.append((va, name))
            p = d.find(pat, p + 1)
    return found


def where(k, va, section):
    return '%#x (%s, after %s)' % (va, section,
                                   (k.syms.extent(va) or ('?',))[0])


def check_redirect(k, f, out):
    """(a) to (e) for @f, whose body a hook replaces: its size."""
    syms, protos = k.syms, k.protos
    fa = syms.addr(f)
    size = k.size(f)
    out('%s: %#x bytes at %#x' % (f, size, fa))
    check_clone(k, f, out)
    # (a) the entry
    if k.img.read(fa, 4) == ENDBR:
        raise Fail('(a) %s: starts with ENDBR: something may call it '
                   'through a pointer' % f)
    if fentry_offset(k, f) != 0:
        raise Fail('(a) %s: no fentry site at +0' % f)
    callers = {}
    for site, t, mn, hname, hs in direct_branches(k, f):
        if t != fa:
            raise Fail('(a) %s: %s+%#x enters it at +%#x' %
                       (f, hname, site - hs, t - fa))
        if mn not in ('call', 'jmp'):
            raise Fail('(a) %s: %s+%#x branches to it conditionally' %
                       (f, hname, site - hs))
        base_name = hname[:-5] if hname.endswith('.cold') else hname
        callers.setdefault(base_name, []).append((site, mn))
    if not callers:
        raise Fail('(a) %s: no direct caller found' % f)
    # absolute addresses: only __mcount_loc may hold one
    for va, sname in address_holders(k, f):
        raise Fail('(a) %s: its address is at %s' % (f, where(k, va, sname)))
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
        check_caller(k, f, need, cname, sites, out)
    return size


def check_caller(k, f, need, cname, sites, out):
    """(c) to (e) at each of @cname's calls to @f."""
    cp = k.protos.proto(cname)
    if cp is None:
        raise Fail('%s: no single BTF prototype' % cname)
    c = Caller(k.vmlinux, k.syms, cname)
    labels = jump_labels(k.img, k.syms, c.parts)
    alts = alt_sites(k.img, k.syms, c.parts)
    if alts:
        raise Fail('%s: patched sites (alternatives) at %s' %
                   (cname, ', '.join('%#x' % a for a in alts)))
    for site, mn in sites:
        if mn != 'call':
            raise Fail('(a) %s: a tail call from %s' % (f, cname))
        check_args(c, site, need[0], [(r, w * 8) for r, w in cp[0]],
                   labels)
        n = check_after(c, site, cp[1], k.protos, labels)
        out('  (c) %s+%#x: %s written on every path; '
            '(d) (e) %d instructions after it read no leftover and '
            'the int as %%eax (%d instructions, %d static branches)' %
            (cname, site - c.entry,
             ' '.join('%s:%d' % (r, w * 8) for r, w in need[0]), n,
             len(c.insns), sum(map(len, labels.values()))))


def review(vmlinux, sysmap, funcs, out):
    """(a) to (e) for each of @funcs: their sizes; Fail on the first
    check that fails."""
    k = Kernel(vmlinux, sysmap)
    return {f: check_redirect(k, f, out) for f in funcs}
