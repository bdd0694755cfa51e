# SPDX-License-Identifier: GPL-2.0
#
# devmemx-review's library: whether a kernel's code is what devmemx's
# redirects were reviewed against. The source side: items.py (what is
# compared), source.py (extraction, normalisation), compare.py (the
# reviewed texts, the diff). The binary side: image.py (the image, its
# symbols and BTF), insn.py (the instruction model), checks.py (the checks
# of a redirected function and its callers), binary.py (the review of the
# token array's and the policies' functions: review()). debian.py fetches,
# entry.py writes the result.
