# SPDX-License-Identifier: GPL-2.0
"""Two files out of a -dbg .deb without unpacking all of it.

A linux-image-KVER-dbg package is about 1.2 GB of xz, over 4 GB of tar:
the modules' debug files, then vmlinux (about 430 MB) near the end, and
System.map near the start. Debian's dpkg writes data.tar.xz in blocks, and
an xz stream ends with an index of them (xz's file format, sections 3-5),
so each block can be decompressed alone: here, the first blocks up to
System.map and the last ones back to vmlinux's tar header, a tenth of the
work. Anything unexpected (another compressor, several streams, a filter
other than LZMA2, a member not found) raises Unsupported, and the caller
unpacks the whole package instead.
"""

import lzma
import struct
import zlib


class Unsupported(Exception):
    pass


def _varint(buf, pos):
    """xz's multibyte integer at @pos: (value, next pos)."""
    val = shift = 0
    for i in range(9):
        b = buf[pos + i]
        val |= (b & 0x7f) << shift
        if not b & 0x80:
            return val, pos + i + 1
        shift += 7
    raise Unsupported('bad xz integer')


def ar_member(f, name):
    """(offset, size) of @name in the ar archive @f (a .deb)."""
    f.seek(0)
    if f.read(8) != b'!<arch>\n':
        raise Unsupported('not an ar archive')
    while True:
        hdr = f.read(60)
        if len(hdr) < 60:
            raise Unsupported('no %s in the .deb' % name)
        size = int(hdr[48:58].decode().strip())
        if hdr[:16].decode().strip().rstrip('/') == name:
            return f.tell(), size
        f.seek(size + (size & 1), 1)


class XzBlocks:
    """The blocks of the one-stream xz file at [@base, @base + @size)."""

    def __init__(self, f, base, size):
        self.f, self.base = f, base
        f.seek(base)
        head = f.read(12)
        if head[:6] != b'\xfd7zXZ\x00':
            raise Unsupported('data.tar is not xz')
        f.seek(base + size - 12)
        foot = f.read(12)
        if foot[10:] != b'YZ' or foot[8:10] != head[6:8]:
            raise Unsupported('not one xz stream')
        isize = (struct.unpack('<I', foot[4:8])[0] + 1) * 4
        f.seek(base + size - 12 - isize)
        index = f.read(isize)
        if index[0] != 0 or zlib.crc32(index[:-4]) != \
                struct.unpack('<I', index[-4:])[0]:
            raise Unsupported('bad xz index')
        n, pos = _varint(index, 1)
        self.blocks = []	# (file offset, unpadded size, out offset, out size)
        at, out = base + 12, 0
        for _ in range(n):
            unpadded, pos = _varint(index, pos)
            usize, pos = _varint(index, pos)
            self.blocks.append((at, unpadded, out, usize))
            at += (unpadded + 3) & ~3
            out += usize
        self.total = out
        if at != base + size - 12 - isize:
            raise Unsupported('xz index does not cover the stream')

    def block(self, i):
        """Block @i, decompressed."""
        at, unpadded, _, usize = self.blocks[i]
        self.f.seek(at)
        raw = self.f.read(unpadded)
        hsize = (raw[0] + 1) * 4
        flags = raw[1]
        if flags & 0x3c or (flags & 3) != 0:	# one filter, no reserved bits
            raise Unsupported('a block with several filters')
        pos = 2
        if flags & 0x40:
            _, pos = _varint(raw, pos)
        if flags & 0x80:
            _, pos = _varint(raw, pos)
        fid, pos = _varint(raw, pos)
        plen, pos = _varint(raw, pos)
        if fid != 0x21 or plen != 1:
            raise Unsupported('a filter other than LZMA2')
        d = raw[pos]
        dict_size = (2 | (d & 1)) << (d // 2 + 11)
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[
            {'id': lzma.FILTER_LZMA2, 'dict_size': dict_size}])
        data = dec.decompress(raw[hsize:])
        if len(data) != usize:
            raise Unsupported('block %d: %d bytes, not %d' % (i, len(data), usize))
        return data


def _header(buf, off):
    """The tar member whose header is at @buf[@off:]: (name, size), or
    None where those 512 bytes are no valid header."""
    h = buf[off:off + 512]
    if len(h) < 512 or h[257:262] != b'ustar':
        return None
    try:
        want = int(h[148:156].split(b'\0')[0].strip() or b'-1', 8)
    except ValueError:
        return None
    if sum(h[:148]) + 8 * 32 + sum(h[156:]) != want:
        return None
    name = h[:100].split(b'\0')[0]
    prefix = h[345:500].split(b'\0')[0]
    if prefix:
        name = prefix + b'/' + name
    raw = h[124:136]
    if raw[0] & 0x80:			# GNU base-256 for large files
        size = int.from_bytes(raw[1:], 'big')
    else:
        size = int(raw.split(b'\0')[0].strip() or b'0', 8)
    return name.decode('utf-8', 'replace'), size


def _headers(buf, start, lo, hi):
    """Offsets (in @buf, which starts at tar offset @start) of the
    512-aligned places in [@lo, @hi) that hold a tar header's magic."""
    off = lo + (-(start + lo)) % 512
    while True:
        m = buf.find(b'ustar', off + 257, hi + 257)
        if m < 0:
            return
        off = m - 257
        if (start + off) % 512 == 0:
            yield off
        off += 1
        off += (-(start + off)) % 512


def extract(deb, members):
    """{suffix: bytes} of the tar members of @deb whose names end with
    @members[0] (looked for from the start: System.map) and @members[1:]
    (from the end: vmlinux)."""
    with open(deb, 'rb') as f:
        base, size = ar_member(f, 'data.tar.xz')
        xz = XzBlocks(f, base, size)
        out = {members[0]: _from_start(xz, members[0])}
        for suffix in members[1:]:
            out[suffix] = _from_end(xz, suffix)
        return out


def _from_start(xz, suffix, limit=64 << 20):
    """Member ...@suffix among the tar's first @limit bytes."""
    buf = b''
    for i in range(len(xz.blocks)):
        lo = max(len(buf) - 511, 0)
        buf += xz.block(i)
        for off in _headers(buf, 0, lo, len(buf)):
            got = _header(buf, off)
            if got and got[0].endswith(suffix):
                while len(buf) < off + 512 + got[1]:
                    i += 1
                    buf += xz.block(i)
                return buf[off + 512:off + 512 + got[1]]
        if len(buf) > limit:
            break
    raise Unsupported('no member ...%s in the first blocks' % suffix)


def _from_end(xz, suffix):
    """Member ...@suffix, its header searched from the last block back:
    all its data follows it, so is in hand once the header is."""
    chunks = []
    for i in range(len(xz.blocks) - 1, -1, -1):
        data = xz.block(i)
        chunks.insert(0, data)
        # a header may begin in this block and end in the next one
        tail = chunks[1][:511] if len(chunks) > 1 else b''
        buf = data + tail
        start = xz.blocks[i][2]
        for off in _headers(buf, start, 0, len(data)):
            got = _header(buf + b'\0' * 512, off)
            if not got or not got[0].endswith(suffix):
                continue
            whole = b''.join(chunks)
            if off + 512 + got[1] > len(whole):
                raise Unsupported('...%s runs past the tar' % suffix)
            return whole[off + 512:off + 512 + got[1]]
    raise Unsupported('no member ...%s' % suffix)
