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
# Prints one line per check and, with --entry, the sizes of the token
# array's three functions in module/reviewed.h's order (tcp_v4_destroy_sock's
# entry hook's checks then run too: binary.py's). Exits 1 when a check
# fails.
#
# The checks live in devmemx-review's library, tools/review/dxreview
# (binary.py reviews the policies' hook too; devmemx-review runs both);
# this is their command line for test/root/tok-review.sh's plants.
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tools', 'review'))
from dxreview.binary import (DESTROY, DESTROY_PROTO, REDIRECTED,  # noqa: E402
                             check_entry_hook)
from dxreview.checks import Kernel, check_redirect  # noqa: E402
from dxreview.image import Fail  # noqa: E402

FUNCS = REDIRECTED


def main(argv):
    entry = '--entry' in argv
    args = [a for a in argv if a != '--entry']
    if len(args) < 2:
        print('usage: tok-review.py [--entry] VMLINUX SYSTEM_MAP [FUNC...]',
              file=sys.stderr)
        return 2
    funcs = args[2:] or FUNCS
    try:
        k = Kernel(args[0], args[1])
        sizes = {f: check_redirect(k, f, print) for f in funcs}
        if entry:
            # the close hook only watches tcp_v4_destroy_sock's entry:
            # an entry hook's checks, not a redirect's
            sizes[DESTROY] = check_entry_hook(k, DESTROY, DESTROY_PROTO,
                                              print)
    except (Fail, OSError, subprocess.CalledProcessError) as e:
        print('FAIL: %s' % e)
        return 1
    if entry:
        # the entry's sizes, in module/reviewed.h's order
        print('entry sizes: ' + ', '.join(
            '%#x' % sizes[f] for f in FUNCS + [DESTROY] if f in sizes))
    print('reviewed: %s' % ', '.join(funcs))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
