# SPDX-License-Identifier: GPL-2.0
#
# The binary side of devmemx-review: what the module's hooks rely on in a
# kernel image (the -dbg package's vmlinux, with its System.map).
#
# review(vmlinux, system_map, out=print) -> (results, sizes)
#   results: {'token-array': None or why, 'policies': None or why}, the
#            first failed check of each (the function and the check named);
#            an image that cannot be read fails both, with the same why
#            (parts= picks other parts, for tests: 'destroy', 'doit')
#   sizes:   {function: bytes, or None if System.map lacks it} for the four
#            hooked functions, up to the next symbol: what the running
#            kernel's kallsyms gives, which the module's gate (gate.c)
#            compares with its entry's.
# Each check prints a line through @out, as test/tok-review.py does; a
# failure prints "FAIL: why". Checks are named as there, (a) to (e), and
# (p): the BTF prototype the hook's thunk and body assume.
#
# token-array
#   tcp_recvmsg_dmabuf, sock_devmem_dontneed: redirected (their bodies
#   replaced): checks (a) to (e) on them and their direct callers
#   (checks.py).
#   tcp_v4_destroy_sock: an entry hook, which runs before the body and
#   returns to it, so no caller's code matters but what reaches the hook:
#   an fentry site at +0 or right after its ENDBR; no clone (a clone's
#   callers never reach the hooked symbol); every direct branch into it
#   enters at or before that site (one past it would skip the hook); BTF
#   gives it void (struct sock *), the one argument the hook reads.
#
# policies
#   netdev_nl_bind_rx_doit: redirected, but called only through the
#   netdev family's ops table, so (a)'s direct callers do not exist and
#   (c) to (e) cannot be checked on callers: an indirect caller knows
#   nothing of the body it calls, so it passes the arguments, treats the
#   caller-saved registers and flags as lost and reads the int as the
#   pointer's type says; GCC's IPA-RA shortcuts (what (c) to (e) look
#   for) apply only where the callee is known. The redirect relies on:
#    - an fentry site at +0 or right after its ENDBR (ftrace's site);
#    - no clone (b), and no direct call or jump into it: a direct caller
#      could know its body, and one past +0 would skip the hook;
#    - BTF prototype int (struct sk_buff *, struct genl_info *): the
#      thunk reads arguments 0 and 1 with ftrace_regs_get_argument and
#      devmemx_pol_doit returns an int in its place;
#    - its address held only by the bind-rx entry (NETDEV_CMD_BIND_RX) of
#      the family's split ops table (netdev_nl_family.split_ops), whose
#      doit member has that prototype, by __mcount_loc, and by KASAN
#      frame records: no other pointer can call it unseen, with other
#      arguments or a caller that knows its body. The table is the one
#      the family registers (its split_ops), not one found by name.
import struct
import subprocess
import sys

from .checks import (Kernel, address_holders, check_clone, check_redirect,
                     direct_branches, fentry_offset, where)
from .image import Fail

REDIRECTED = ['tcp_recvmsg_dmabuf', 'sock_devmem_dontneed']
DESTROY = 'tcp_v4_destroy_sock'
DESTROY_PROTO = 'void (struct sock *)'
DOIT = 'netdev_nl_bind_rx_doit'
DOIT_PROTO = 'int (struct sk_buff *, struct genl_info *)'
FAMILY = 'netdev_nl_family'
BIND_RX = 'NETDEV_CMD_BIND_RX'
SIZED = REDIRECTED + [DESTROY, DOIT]


def check_proto(k, f, want, out):
    """(p): the arguments the thunk reads, the value the body returns."""
    got = k.protos.func_proto(f)
    if got != want:
        raise Fail('(p) %s: BTF gives %s, not %s' %
                   (f, got or 'no single prototype', want))
    out('  (p) BTF: %s' % want)


def check_fentry(k, f):
    off = fentry_offset(k, f)
    if off is None:
        raise Fail('(a) %s: no fentry site at +0 or after its ENDBR' % f)
    return off


def check_entry_hook(k, f, proto, out):
    """An entry hook's needs of @f (see the header): its size."""
    fa = k.syms.addr(f)
    size = k.size(f)
    out('%s: %#x bytes at %#x' % (f, size, fa))
    check_clone(k, f, out)
    off = check_fentry(k, f)
    n = 0
    for site, t, mn, hname, hs in direct_branches(k, f):
        if t - fa > off:
            raise Fail('(a) %s: %s+%#x enters it at +%#x, past its fentry '
                       'site' % (f, hname, site - hs, t - fa))
        n += 1
    out('  (a) fentry at +%d; %d direct branches into it, none past it' %
        (off, n))
    check_proto(k, f, proto, out)
    return size


def int_at(k, va, size):
    fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}.get(size)
    if not fmt:
        raise Fail('%#x: a %d-byte number' % (va, size))
    return struct.unpack(fmt, k.img.read(va, size))[0]


def member(k, sname, mname):
    m = k.protos.struct_member(sname, mname)
    if m is None:
        raise Fail('BTF: no single struct %s with a member %s' %
                   (sname, mname))
    return m


def split_ops(k):
    """The netdev family's split ops table: (start, entries, entry size),
    from the family itself (its split_ops and n_split_ops)."""
    fam = k.syms.addr(FAMILY)
    off, _ = member(k, 'genl_family', 'split_ops')
    noff, ntid = member(k, 'genl_family', 'n_split_ops')
    start = int_at(k, fam + off, 8)
    n = int_at(k, fam + noff, k.protos.size(ntid)[0])
    esize = k.protos.struct_size('genl_split_ops')
    if not start or not n or not esize:
        raise Fail('%s: no split ops table' % FAMILY)
    return start, n, esize


def check_holder(k, f, va, sname, table):
    """@va, which holds @f's address, must be the doit of the table's
    bind-rx entry."""
    fa = k.syms.addr(f)
    start, n, esize = table
    doit, dtid = member(k, 'genl_split_ops', 'doit')
    cmd, ctid = member(k, 'genl_split_ops', 'cmd')
    entry = va - doit
    if not (start <= entry < start + n * esize and
            (entry - start) % esize == 0 and int_at(k, va, 8) == fa):
        raise Fail('(a) %s: its address is at %s, not in %s\'s ops' %
                   (f, where(k, va, sname), FAMILY))
    want = k.protos.enumerator(BIND_RX)
    if want is None:
        raise Fail('BTF: no enumerator %s' % BIND_RX)
    got = int_at(k, entry + cmd, k.protos.size(ctid)[0])
    if got != want:
        raise Fail('(a) %s: %s\'s ops entry %d holds it for cmd %d, not '
                   '%s (%d)' % (f, FAMILY, (entry - start) // esize, got,
                                BIND_RX, want))
    ptype = k.protos.spell(dtid)
    if ptype != DOIT_PROTO + ' *':
        raise Fail('(p) genl_split_ops.doit: BTF gives %s, not %s *' %
                   (ptype, DOIT_PROTO))
    return (entry - start) // esize


def check_doit(k, f, out):
    """The policies' redirect's needs of @f (see the header): its size."""
    fa = k.syms.addr(f)
    size = k.size(f)
    out('%s: %#x bytes at %#x' % (f, size, fa))
    check_clone(k, f, out)
    off = check_fentry(k, f)
    branches = direct_branches(k, f)
    if branches:
        site, t, mn, hname, hs = branches[0]
        raise Fail('(a) %s: %s+%#x branches to it directly (+%#x)' %
                   (f, hname, site - hs, t - fa))
    check_proto(k, f, DOIT_PROTO, out)
    table = split_ops(k)
    entries = [check_holder(k, f, va, sname, table)
               for va, sname in address_holders(k, f)]
    if not entries:
        raise Fail('(a) %s: no entry of %s\'s ops holds it' % (f, FAMILY))
    out('  (a) fentry at +%d, no direct branch into it; its address only '
        'in %s\'s ops (%#x, %d entries), entry %s (%s), doit %s *' %
        (off, FAMILY, table[0], table[1],
         ', '.join(map(str, entries)), BIND_RX, DOIT_PROTO))
    return size


def token_array(k, out):
    for f in REDIRECTED:
        check_redirect(k, f, out)
    check_entry_hook(k, DESTROY, DESTROY_PROTO, out)
    out('reviewed: %s' % ', '.join(REDIRECTED + [DESTROY]))


def policies(k, out):
    check_doit(k, DOIT, out)
    out('reviewed: %s' % DOIT)


PARTS = {'token-array': token_array, 'policies': policies,
         'destroy': lambda k, out: check_entry_hook(k, DESTROY,
                                                    DESTROY_PROTO, out),
         'doit': lambda k, out: check_doit(k, DOIT, out)}


def attempt(fn, out, *args):
    """None if @fn passes, else why (printed as "FAIL: why")."""
    try:
        fn(*args)
        return None
    except (Fail, OSError, subprocess.CalledProcessError) as e:
        out('FAIL: %s' % e)
        return str(e)


def sizes_of(k):
    sizes = {}
    for f in SIZED:
        try:
            sizes[f] = k.size(f)
        except Fail:
            sizes[f] = None
    return sizes


def review(vmlinux, system_map, out=print, parts=('token-array', 'policies')):
    results = dict.fromkeys(parts)
    k = []
    why = attempt(lambda: k.append(Kernel(vmlinux, system_map)), out)
    if why:
        return dict.fromkeys(parts, why), dict.fromkeys(SIZED)
    for p in parts:
        results[p] = attempt(PARTS[p], out, k[0], out)
    return results, sizes_of(k[0])


def main(argv):
    """python3 -m dxreview.binary VMLINUX SYSTEM_MAP [PART...]: the review,
    or its parts (token-array, policies, destroy, doit); exit 1 if one
    fails."""
    if len(argv) < 2 or any(p not in PARTS for p in argv[2:]):
        print('usage: binary.py VMLINUX SYSTEM_MAP [%s...]' %
              '|'.join(PARTS), file=sys.stderr)
        return 2
    results, sizes = review(argv[0], argv[1], print,
                            tuple(argv[2:]) or ('token-array', 'policies'))
    for p, why in results.items():
        print('%s: %s' % (p, 'FAIL: ' + why if why else 'passes'))
    print('sizes: ' + ', '.join('%s %s' % (f, '%#x' % n if n else '-')
                                for f, n in sizes.items()))
    return 1 if any(results.values()) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
