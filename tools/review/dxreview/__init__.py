# SPDX-License-Identifier: GPL-2.0
#
# devmemx-review's library. The binary side: image.py (the image, its
# symbols and BTF), insn.py (the instruction model), checks.py (the
# checks (a) to (e) of a redirected function), binary.py (the review of
# the token array's and the policies' hooks: review()).
