# SPDX-License-Identifier: GPL-2.0
"""The source side of a review: each item's text, read from a kernel tree
or from Debian's linux-source tarball, normalised and hashed.

A text is cut out by the kernel's own layout conventions (a definition's
head starts at column 0, its body ends with a brace at column 0), after
comments are gone, so that a comment holding a brace or a name never
decides where an item starts or ends. Normalising drops comments, blank
lines and the amount of whitespace: what is left is what the compiler
reads, line by line, so that diffs stay readable.
"""

import hashlib
import os
import re
import shutil
import subprocess

from . import items as _items


class Missing(Exception):
    """An item that is not in the source: the review fails with its why."""


# ---- reading the tree ---------------------------------------------------

def tarball_key(path):
    """A name for a tarball's extracted files: its content's hash, so that
    a tarball replaced under the same name is extracted again."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()[:16]


def extract(tarball, paths, dest, log=None):
    """Extract @paths (relative to the tree) of a linux-source tarball into
    @dest, as dest/PATH, in one pass; a file already there is kept. The
    tarball's top directory (linux-source-X.Y/) is dropped. A path the
    tarball lacks is left missing: the item reading it fails."""
    want = [p for p in paths if not os.path.exists(os.path.join(dest, p))]
    if not want:
        return
    os.makedirs(dest, exist_ok=True)
    tmp = dest + '.part'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # --wildcards '*/PATH': the top directory's name differs per series.
    cmd = ['tar', '-xJf', tarball, '-C', tmp, '--wildcards',
           '--no-wildcards-match-slash'] + ['*/' + p for p in want]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if log:
        log.write('$ %s\n%s' % (' '.join(cmd), r.stdout))
    for top in os.listdir(tmp):
        for p in want:
            src = os.path.join(tmp, top, p)
            if os.path.isfile(src):
                os.makedirs(os.path.dirname(os.path.join(dest, p)),
                            exist_ok=True)
                os.replace(src, os.path.join(dest, p))
    shutil.rmtree(tmp, ignore_errors=True)


def tree_for(source, cache, paths, log=None):
    """The directory to read @paths from: @source itself when it is a
    tree, else the cache's extraction of the tarball."""
    if os.path.isdir(source):
        return source
    dest = os.path.join(cache, 'source', 'tar-' + tarball_key(source))
    extract(source, paths, dest, log)
    return dest


# ---- comments -------------------------------------------------------------

def strip_comments(text):
    """@text without its comments, every newline kept (so line numbers
    stay), string and character literals untouched: a "/*" in a string is
    no comment."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            out.append(' ' + '\n' * text.count('\n', i, end))
            i = end
        elif c == '/' and text.startswith('//', i):
            end = text.find('\n', i)
            i = n if end < 0 else end
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def blank_literals(line):
    """@line with its string and character literals emptied: for brace
    and parenthesis counting only."""
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', line)


# ---- finding an item ------------------------------------------------------

HEAD_STOP = re.compile(r'(;|\}|\{|\*/)\s*$|^\s*#')


def _head_start(lines, i):
    """The first line of the definition head whose name is on line @i:
    the lines before it that carry its return type and attributes (up to
    a blank line, a preprocessor line or the end of something else)."""
    while i > 0:
        prev = lines[i - 1]
        if not prev.strip() or HEAD_STOP.search(prev) or prev[0] in ' \t':
            break
        i -= 1
    return i


def _close_col0(lines, i, what):
    """The index of the first line from @i that closes a definition at
    column 0 ('}' or '};')."""
    for j in range(i, len(lines)):
        if re.match(r'\}\s*;?\s*$', lines[j]):
            return j
    raise Missing('%s: no closing brace at column 0' % what)


def _after_parens(lines, i, col):
    """From the '(' at lines[i][col]: (line, column) just after its
    matching ')'."""
    depth = 0
    j, k = i, col
    while j < len(lines):
        s = blank_literals(lines[j])
        while k < len(s):
            if s[k] == '(':
                depth += 1
            elif s[k] == ')':
                depth -= 1
                if depth == 0:
                    return j, k + 1
            k += 1
        j, k = j + 1, 0
    return None


def _next_token(lines, j, k):
    """The first character that is not blank from (j, k), and its line;
    attribute macros between a head and its body are skipped."""
    while j < len(lines):
        rest = lines[j][k:]
        m = re.match(r'\s*(__\w+(\([^)]*\))?\s*)*(\S)', rest)
        if m:
            return m.group(3), j
        j, k = j + 1, 0
    return None, None


def find_function(lines, name):
    """(first, last) line indexes of the first definition of function
    @name: a head whose name starts at column 0 or follows a type on a
    line that does, and a body closed at column 0."""
    pat = re.compile(r'(^|[\s*])%s\s*\(' % re.escape(name))
    for i, line in enumerate(lines):
        if not line or line[0] in ' \t#':
            continue
        m = pat.search(line)
        if not m:
            continue
        end = _after_parens(lines, i, line.index('(', m.end() - 1))
        if not end:
            continue
        tok, j = _next_token(lines, *end)
        if tok != '{':
            continue        # a prototype, or a call at file scope
        return _head_start(lines, i), _close_col0(lines, j, name)
    raise Missing('function %s not found' % name)


def find_macro(lines, name):
    pat = re.compile(r'\s*#\s*define\s+%s\b' % re.escape(name))
    for i, line in enumerate(lines):
        if pat.match(line):
            j = i
            while lines[j].rstrip().endswith('\\') and j + 1 < len(lines):
                j += 1
            return i, j
    raise Missing('macro %s not found' % name)


def find_struct(lines, name):
    pat = re.compile(r'struct\s+%s\s*\{' % re.escape(name))
    for i, line in enumerate(lines):
        if pat.match(line):
            return i, _close_col0(lines, i, 'struct ' + name)
    raise Missing('struct %s not found' % name)


def find_initializer(lines, name):
    """A definition at file scope that initialises @name: 'TYPE
    NAME[...] = {' to its '};' at column 0."""
    pat = re.compile(r'\b%s\b[^=;(]*=\s*\{' % re.escape(name))
    for i, line in enumerate(lines):
        if line and line[0] not in ' \t#' and pat.search(line):
            return _head_start(lines, i), _close_col0(lines, i, name)
    raise Missing('initializer of %s not found' % name)


def _brace_groups(lines, first, last, depth_of_group):
    """(start, end) line pairs of every brace group that opens at brace
    depth @depth_of_group within lines[first..last]."""
    groups, depth, start = [], 0, None
    for j in range(first, last + 1):
        for c in blank_literals(lines[j]):
            if c == '{':
                depth += 1
                if depth == depth_of_group:
                    start = j
            elif c == '}':
                if depth == depth_of_group and start is not None:
                    groups.append((start, j))
                    start = None
                depth -= 1
    return groups


def find_element(lines, name):
    """ARRAY:TOKEN: the element of array ARRAY's initializer ({ ... } at
    the first level inside it) that names TOKEN."""
    array, token = name.split(':', 1)
    first, last = find_initializer(lines, array)
    word = re.compile(r'\b%s\b' % re.escape(token))
    for s, e in _brace_groups(lines, first, last, 2):
        if any(word.search(l) for l in lines[s:e + 1]):
            return s, e
    raise Missing('no element of %s names %s' % (array, token))


def _call_line(lines, first, last, caller, callee):
    pat = re.compile(r'\b%s\s*\(' % re.escape(callee))
    for j in range(first + 1, last + 1):
        if pat.search(lines[j]):
            return j
    raise Missing('%s does not call %s' % (caller, callee))


def find_call(lines, name):
    """CALLER:CALLEE: the statement of CALLER that calls CALLEE, from the
    call's line to the ';' that ends it."""
    caller, callee = name.split(':', 1)
    first, last = find_function(lines, caller)
    j = _call_line(lines, first, last, caller, callee)
    k = j
    while k < last and not blank_literals(lines[k]).rstrip().endswith(';'):
        k += 1
    return j, k


def find_call_block(lines, name):
    """CALLER:CALLEE: the innermost brace block of CALLER around its call
    of CALLEE (what is done with its arguments and its result)."""
    caller, callee = name.split(':', 1)
    first, last = find_function(lines, caller)
    j = _call_line(lines, first, last, caller, callee)
    stack, best = [], None
    for k in range(first, last + 1):
        for c in blank_literals(lines[k]):
            if c == '{':
                stack.append(k)
            elif c == '}' and stack:
                s = stack.pop()
                if s <= j <= k and (best is None or s >= best[0]):
                    best = (s, k)
    if best is None:
        raise Missing('%s: no block around its call of %s' % (caller, callee))
    return best


FINDERS = {
    'function': find_function,
    'macro': find_macro,
    'struct': find_struct,
    'array-initializer': find_initializer,
    'element': find_element,
    'call': find_call,
    'call-block': find_call_block,
}


# ---- normalising ----------------------------------------------------------

def normalise(lines):
    """Comment-free @lines as the review compares them: no trailing blanks,
    no blank lines, every run of spaces and tabs one space."""
    out = []
    for line in lines:
        line = re.sub(r'[ \t]+', ' ', line).strip()
        if line:
            out.append(line)
    return '\n'.join(out) + '\n'


def text_hash(text):
    return hashlib.sha256(text.encode()).hexdigest()


class Text:
    """An item's text as found in a source: normalised, hashed, and where
    it was (path, first line, 1-based)."""

    def __init__(self, item, text, line):
        self.item = item
        self.text = text
        self.line = line
        self.sha = text_hash(text)
        self.short = self.sha[:16]


def read_items(tree, items=None):
    """{item name: Text or Missing} for @items (all by default) in the
    tree at @tree."""
    items = _items.ITEMS if items is None else items
    files, out = {}, {}
    for it in items:
        path = os.path.join(tree, it.path)
        if it.path not in files:
            try:
                with open(path, encoding='utf-8', errors='replace') as f:
                    files[it.path] = strip_comments(f.read()).split('\n')
            except OSError:
                files[it.path] = None
        lines = files[it.path]
        if lines is None:
            out[it.name] = Missing('%s is not in the source' % it.path)
            continue
        try:
            first, last = FINDERS[it.kind](lines, it.name)
        except Missing as e:
            out[it.name] = Missing('%s: %s' % (it.path, e))
            continue
        out[it.name] = Text(it, normalise(lines[first:last + 1]), first + 1)
    return out


def needed_paths():
    """The tree's files the items read."""
    return _items.paths()
