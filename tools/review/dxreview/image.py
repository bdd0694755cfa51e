# SPDX-License-Identifier: GPL-2.0
#
# The review's kernel image: its sections (Image), its symbols
# (Symbols, from System.map) and its BTF prototypes (BTF).
import bisect
import struct

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
            if kind == 13:          # params: (name, type)
                members = [struct.unpack_from('<II', blob, q + 8 * k)
                           for k in range(vlen)]
            elif kind in (4, 5):    # members: (name, type, bit offset)
                members = [struct.unpack_from('<III', blob, q + 12 * k)
                           for k in range(vlen)]
                if info >> 31:      # bitfield sizes in the top byte
                    members = [(n, t, o & 0xffffff) for n, t, o in members]
            elif kind == 6:         # enumerators: (name, value)
                members = [struct.unpack_from('<Ii', blob, q + 8 * k)
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

    def spell(self, tid):
        """@tid as C spells a parameter's type: 'struct sock *', 'int'."""
        if tid == 0:
            return 'void'
        kind, name, st, members = self.types[tid]
        if kind == 2:
            inner = self.spell(st)
            return inner + ('*' if inner.endswith('*') else ' *')
        if kind == 10:
            return 'const ' + self.spell(st)
        if kind == 9:
            return 'volatile ' + self.spell(st)
        if kind == 13:
            return '%s (%s)' % (self.spell(st), ', '.join(
                self.spell(t) for _, t in members) or 'void')
        tag = {4: 'struct ', 5: 'union ', 6: 'enum ',
               7: 'struct '}.get(kind, '')
        return tag + (self.name(name) or '<anon>')

    def func_proto(self, fname):
        """@fname's prototype spelled as C does, 'void (struct sock *)';
        None if BTF has none or two that differ."""
        spelled = set(self.spell(i) for i in self.funcs.get(fname, []))
        return spelled.pop() if len(spelled) == 1 else None

    def struct_member(self, sname, mname):
        """(byte offset, type id) of struct @sname's member @mname;
        None if BTF has no such struct, or two that differ."""
        found = set()
        for kind, name, st, members in self.types[1:]:
            if kind == 4 and self.name(name) == sname:
                found |= self.members_named(members, mname, 0)
        return found.pop() if len(found) == 1 else None

    def members_named(self, members, mname, base):
        """(byte offset, type) of each member @mname, anonymous structs
        and unions looked into (genl_split_ops keeps doit in one)."""
        found = set()
        for n, t, bits in members:
            if bits % 8:
                continue
            if self.name(n) == mname:
                found.add((base + bits // 8, t))
            elif not n and self.types[t][0] in (4, 5):
                found |= self.members_named(self.types[t][3], mname,
                                            base + bits // 8)
        return found

    def struct_size(self, sname):
        sizes = set(st for kind, name, st, _ in self.types[1:]
                    if kind == 4 and self.name(name) == sname)
        return sizes.pop() if len(sizes) == 1 else None

    def enumerator(self, ename):
        """The value of enumerator @ename, None if BTF has none."""
        vals = set(v for kind, _, _, members in self.types[1:] if kind == 6
                   for n, v in members if self.name(n) == ename)
        return vals.pop() if len(vals) == 1 else None

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
