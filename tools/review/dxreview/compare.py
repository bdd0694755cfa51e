# SPDX-License-Identifier: GPL-2.0
"""The reviewed texts (tools/review/reviewed/ITEM/HASH16.txt), and a
source's items compared with them.

A file holds one normalised text someone reviewed, and nothing else: its
name is the first 16 hex digits of the text's sha256, so that the store
can be checked against itself (check_store). An item passes when its
text's file is there; else the closest reviewed text of that item is
shown against the new one.
"""

import difflib
import os

from . import items as _items
from .source import Missing, text_hash


def reviewed_texts(store, name):
    """{hash16: text} of item @name's reviewed texts."""
    d = os.path.join(store, name)
    out = {}
    if os.path.isdir(d):
        for f in sorted(os.listdir(d)):
            if f.endswith('.txt'):
                with open(os.path.join(d, f), encoding='utf-8') as fh:
                    out[f[:-4]] = fh.read()
    return out


def check_store(store):
    """Problems of the store: a file whose name is not its text's hash, a
    directory of no item. An empty list when it is sound."""
    bad = []
    names = {it.name for it in _items.ITEMS}
    if not os.path.isdir(store):
        return ['%s: no such directory' % store]
    for name in sorted(os.listdir(store)):
        if name == 'README':
            continue
        if name not in names:
            bad.append('%s/%s: no item of that name' % (store, name))
            continue
        for h, text in reviewed_texts(store, name).items():
            if text_hash(text)[:16] != h:
                bad.append('%s/%s/%s.txt: its text hashes to %s' %
                           (store, name, h, text_hash(text)[:16]))
    return bad


class Result:
    """One item of one source: passed (the reviewed file it matched), or
    failed with a why and, for a changed text, the diff."""

    def __init__(self, item, text=None, why=None, diff=None, match=None):
        self.item = item
        self.text = text        # source.Text, None when missing
        self.why = why          # None when passed
        self.diff = diff or []  # unified diff lines
        self.match = match      # hash16 of the reviewed text matched

    @property
    def passed(self):
        return self.why is None


def closest(texts, new):
    """(hash16, text) of @texts most like @new, line by line; None when
    there is none."""
    best, score = None, -1.0
    for h, old in sorted(texts.items()):
        r = difflib.SequenceMatcher(None, old.splitlines(),
                                    new.splitlines()).ratio()
        if r > score:
            best, score = (h, old), r
    return best


def compare(found, store, label):
    """[Result] per item of @found ({name: Text or Missing}, from
    source.read_items); @label names the source in the diffs' headers
    (the kernel version)."""
    out = []
    for it in _items.ITEMS:
        if it.name not in found:
            continue
        t = found[it.name]
        if isinstance(t, Missing):
            out.append(Result(it, why='missing (%s)' % t))
            continue
        texts = reviewed_texts(store, it.name)
        if t.short in texts and texts[t.short] == t.text:
            out.append(Result(it, text=t, match=t.short))
            continue
        near = closest(texts, t.text)
        if near is None:
            out.append(Result(it, text=t,
                              why='has no reviewed text'))
            continue
        h, old = near
        diff = list(difflib.unified_diff(
            old.splitlines(), t.text.splitlines(),
            'reviewed/%s/%s.txt' % (it.name, h),
            '%s %s:%d' % (label, it.path, t.line), lineterm=''))
        out.append(Result(it, text=t, diff=diff,
                          why='differs from every reviewed text'))
    return out


def feature_why(results, feature):
    """None when every item of @feature passed, else the first failure's
    why (the others are in the report)."""
    for r in results:
        if r.item.feature == feature and not r.passed:
            return 'source of %s %s' % (r.item.name, r.why)
    return None


def accept(results, store):
    """Write the text of every failed item that has one into @store; the
    files written (a missing item cannot be accepted)."""
    added = []
    for r in results:
        if r.passed or r.text is None:
            continue
        d = os.path.join(store, r.item.name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, r.text.short + '.txt')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(r.text.text)
        added.append(path)
    return added
