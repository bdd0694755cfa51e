#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A flame graph of folded stacks ("task;outer;...;inner COUNT" a line, as
# make ab's profile set writes them): each frame a box as wide as its
# samples, callers below callees, the name and share in each box's title.
# Also prints the functions with the most samples of their own (self).
# usage: flame.py FOLDED SVG TITLE [TOP]
import html
import sys
import zlib

W, ROW, FONT = 1200, 16, 11


def load(path):
    root = {'n': 0, 'kids': {}}
    selfs = {}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            if not stack or not count.isdigit():
                raise SystemExit('%s: not a folded stack: %s' % (path, line.strip()))
            n = int(count)
            node = root
            node['n'] += n
            frames = stack.split(';')
            for fr in frames:
                node = node['kids'].setdefault(fr, {'n': 0, 'kids': {}})
                node['n'] += n
            selfs[frames[-1]] = selfs.get(frames[-1], 0) + n
    return root, selfs


def colour(name):
    h = zlib.crc32(name.encode())
    return 'rgb(%d,%d,%d)' % (205 + h % 50, 80 + (h >> 8) % 120, 40 + (h >> 16) % 50)


def draw(root, title):
    boxes, depth = [], [0]

    def walk(node, name, x, level):
        w = node['n'] * W / root['n']
        if w < 0.3:
            return
        boxes.append((name, x, level, w, node['n']))
        depth[0] = max(depth[0], level)
        for k in sorted(node['kids']):
            walk(node['kids'][k], k, x, level + 1)
            x += node['kids'][k]['n'] * W / root['n']

    walk(root, 'all', 0.0, 0)
    height = (depth[0] + 1) * ROW + 40
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="monospace" font-size="%d">' % (W, height, FONT),
           '<text x="%d" y="20" text-anchor="middle" font-size="14">%s</text>'
           % (W // 2, html.escape(title))]
    for name, x, level, w, n in boxes:
        y = height - (level + 1) * ROW
        pct = 100.0 * n / root['n']
        label = '%s (%d samples, %.2f%%)' % (name, n, pct)
        out.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" '
                   'height="%d" fill="%s" stroke="white" stroke-width="0.5"/>'
                   % (html.escape(label), x, y, w, ROW - 1, colour(name)))
        chars = int((w - 4) / (FONT * 0.6))
        if chars >= 3:
            text = name if len(name) <= chars else name[:chars - 2] + '..'
            out.append('<text x="%.1f" y="%d">%s</text>'
                       % (x + 2, y + ROW - 4, html.escape(text)))
        out.append('</g>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main(argv):
    if len(argv) not in (3, 4):
        print('usage: flame.py FOLDED SVG TITLE [TOP]', file=sys.stderr)
        return 2
    root, selfs = load(argv[0])
    if not root['n']:
        print('%s: no samples' % argv[0], file=sys.stderr)
        return 1
    with open(argv[1], 'w') as f:
        f.write(draw(root, '%s: %d samples' % (argv[2], root['n'])))
    top = int(argv[3]) if len(argv) == 4 else 0
    for name, n in sorted(selfs.items(), key=lambda x: -x[1])[:top]:
        print('%6.2f%% %s' % (100.0 * n / root['n'], name))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
