# SPDX-License-Identifier: GPL-2.0
"""The review's result for one kernel: its entry file (what the loader
reads) and the C line a test build compiles in, and the GNU build id that
names the image reviewed."""

import os
import struct
import tempfile
import time

from . import items as _items

NT_GNU_BUILD_ID = 3


def build_id(vmlinux):
    """The hex GNU build id of an ELF64 little-endian image (its
    .note.gnu.build-id, or any SHT_NOTE section holding one); None when
    it has none."""
    with open(vmlinux, 'rb') as f:
        eh = f.read(64)
        if eh[:4] != b'\x7fELF' or eh[4] != 2 or eh[5] != 1:
            return None
        shoff, = struct.unpack_from('<Q', eh, 0x28)
        shentsize, shnum = struct.unpack_from('<HH', eh, 0x3a)
        for i in range(shnum):
            f.seek(shoff + i * shentsize)
            sh = f.read(shentsize)
            stype, = struct.unpack_from('<I', sh, 4)
            if stype != 7:          # SHT_NOTE
                continue
            off, size = struct.unpack_from('<QQ', sh, 0x18)
            f.seek(off)
            notes = f.read(size)
            p = 0
            while p + 12 <= len(notes):
                namesz, descsz, ntype = struct.unpack_from('<III', notes, p)
                name = notes[p + 12:p + 12 + namesz]
                q = p + 12 + ((namesz + 3) & ~3)
                if ntype == NT_GNU_BUILD_ID and name.rstrip(b'\0') == b'GNU':
                    return notes[q:q + descsz].hex()
                p = q + ((descsz + 3) & ~3)
    return None


def lines(version, kver, debver, bid, results, passed, sizes, why):
    """The entry's lines. @results: compare.Result per item; @passed:
    {feature: True when its source and binary passed}; @sizes: {function:
    size}; @why: {feature: why it failed}."""
    out = ['# devmemx-review %s, %s: %s (Debian %s)' %
           (version, time.strftime('%Y-%m-%d %H:%M:%S %z'), kver, debver),
           'release %s' % kver,
           'debian %s' % debver]
    out.append('build-id %s' % bid if bid else
               '# build-id: no image reviewed')
    for feature in _items.FEATURES:
        if passed.get(feature):
            for fn in _items.FUNCTIONS[feature]:
                out.append('function %s 0x%x' % (fn, sizes[fn]))
    for r in results:
        if r.passed:
            out.append('source %s %s' % (r.item.name, r.match))
    for feature in _items.FEATURES:
        if not passed.get(feature):
            out.append('failed %s %s' % (feature, why[feature]))
    return out


def write(path, text_lines):
    """@path replaced atomically by the entry, owned by root (when run as
    root), mode 0644."""
    d = os.path.dirname(path) or '.'
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.entry.', dir=d)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write('\n'.join(text_lines) + '\n')
            f.flush()
            os.fchmod(f.fileno(), 0o644)
            if os.geteuid() == 0:
                os.fchown(f.fileno(), 0, 0)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def c_line(kver, debver, build, passed, sizes):
    """A test build's compiled-in entry: sizes of the four functions,
    0 for one whose feature failed."""
    fns = [fn for f in _items.FEATURES for fn in _items.FUNCTIONS[f]]
    feat = {fn: f for f in _items.FEATURES for fn in _items.FUNCTIONS[f]}
    vals = ['0x%x' % sizes[fn] if passed.get(feat[fn]) else '0'
            for fn in fns]

    def q(s):
        return '"%s"' % s.replace('\\', '\\\\').replace('"', '\\"')
    return '{ %s, %s, %s, { %s } },' % (q(kver), q(debver), q(build),
                                        ', '.join(vals))
