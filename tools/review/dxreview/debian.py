# SPDX-License-Identifier: GPL-2.0
"""Debian's packages of a kernel, fetched with the host's own apt: the
linux-source tarball and the -dbg image. Only the files a review reads are
kept (in the cache); the .deb and the tarball are deleted once read."""

import fcntl
import glob
import os
import shutil
import subprocess

from . import source, xzdeb


class Error(Exception):
    """A download or unpacking that failed: the command exits 2."""


def run(cmd, log, **kw):
    log.write('$ %s\n' % ' '.join(cmd))
    log.flush()
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, **kw)
    if r.returncode:
        raise Error('%s failed (%d); see the log' % (cmd[0], r.returncode))


def output(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True)
    return r.stdout if r.returncode == 0 else None


def installed_version(pkg):
    """The installed version of @pkg, or None."""
    v = output(['dpkg-query', '-W', '-f', '${Version}', pkg])
    return (v.strip() or None) if v else None


def size(pkg, ver):
    """The .deb's size in bytes (apt-cache show), None when apt does not
    know that version."""
    out = output(['apt-cache', 'show', '%s=%s' % (pkg, ver)])
    for line in (out or '').splitlines():
        if line.startswith('Size:'):
            return int(line.split()[1])
    return None


def mib(n):
    return '%.1f MiB' % (n / 1048576.0)


def download(pkg, ver, where, log, say):
    """apt-get download @pkg=@ver into @where, saying first how big it is;
    the .deb's path."""
    n = size(pkg, ver)
    if n is None:
        raise Error('apt knows no %s=%s (apt-get update? is the suite in '
                    'sources.list?)' % (pkg, ver))
    say('downloading %s %s (%s)' % (pkg, ver, mib(n)))
    os.makedirs(where, exist_ok=True)
    for old in glob.glob(os.path.join(where, '*.deb')):
        os.unlink(old)
    run(['apt-get', 'download', '%s=%s' % (pkg, ver)], log, cwd=where)
    debs = glob.glob(os.path.join(where, pkg + '_*.deb'))
    if len(debs) != 1:
        raise Error('apt-get download left no %s .deb' % pkg)
    return debs[0]


def series(kver):
    """'7.2' of '7.2.12+deb13-amd64'."""
    return '.'.join(kver.split('.')[:2])


def source_tree(kver, debver, cache, log, say):
    """A directory holding the review's files of linux-source-X.Y=DEBVER,
    downloaded once and kept in the cache."""
    pkg = 'linux-source-' + series(kver)
    dest = os.path.join(cache, 'source', '%s_%s' % (pkg, debver))
    paths = source.needed_paths()
    # Flavours of one source (-amd64, -cloud-amd64) share this directory:
    # two reviews at once take turns.
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _source_tree(pkg, kver, debver, dest, paths, cache, log, say)


def _source_tree(pkg, kver, debver, dest, paths, cache, log, say):
    if all(os.path.exists(os.path.join(dest, p)) for p in paths):
        say('source: %s %s, from the cache' % (pkg, debver))
        return dest
    # The host's own linux-source, where it is that very version.
    installed = '/usr/src/%s.tar.xz' % pkg
    if installed_version(pkg) == debver and os.path.isfile(installed):
        say('source: %s %s, installed: reading its %d files' %
            (pkg, debver, len(paths)))
        source.extract(installed, paths, dest, log)
        return dest
    work = os.path.join(cache, 'download', kver)
    deb = download(pkg, debver, work, log, say)
    say('unpacking its tarball and the %d files read' % len(paths))
    tar = './usr/src/%s.tar.xz' % pkg
    run(['sh', '-c', 'dpkg-deb --fsys-tarfile "$1" | tar -xf - -C "$2" "$3"',
         'sh', deb, work, tar], log)
    os.unlink(deb)
    tarball = os.path.join(work, tar)
    source.extract(tarball, paths, dest, log)
    shutil.rmtree(os.path.join(work, 'usr'), ignore_errors=True)
    return dest


def image(kver, debver, cache, log, say):
    """(vmlinux, System.map) of linux-image-KVER-dbg=DEBVER, kept in the
    cache; the .deb (about 1.2 GB) is not."""
    pkg = 'linux-image-%s-dbg' % kver
    dest = os.path.join(cache, 'image', '%s_%s' % (kver, debver))
    files = [os.path.join(dest, f) for f in ('vmlinux', 'System.map')]
    if all(os.path.isfile(f) for f in files):
        say('image: %s %s, from the cache' % (pkg, debver))
        return files
    work = os.path.join(cache, 'download', kver)
    deb = download(pkg, debver, work, log, say)
    say('unpacking its vmlinux and System.map')
    os.makedirs(dest, exist_ok=True)
    m = './usr/lib/debug/lib/modules/%s' % kver
    try:
        want = {'%s/System.map' % m[1:]: files[1], '%s/vmlinux' % m[1:]: files[0]}
        got = xzdeb.extract(deb, list(want))
        for suffix, path in want.items():
            with open(path + '.part', 'wb') as f:
                f.write(got[suffix])
            os.replace(path + '.part', path)
        os.unlink(deb)
        return files
    except xzdeb.Unsupported as e:
        log.write('the blocks of %s: %s; unpacking all of it\n' % (deb, e))
    # Debian's data.tar.xz is written in blocks: xz decompresses them on
    # every CPU at once, where dpkg-deb reads one stream.
    if 'data.tar.xz' in (output(['ar', 't', deb]) or '').split():
        unpack = 'ar p "$1" data.tar.xz | xz -dc -T0'
    else:
        unpack = 'dpkg-deb --fsys-tarfile "$1"'
    run(['bash', '-c', 'set -o pipefail; ' + unpack + ' | '
         'tar -xf - -C "$2" --strip-components=7 "$3/vmlinux" "$3/System.map"',
         'bash', deb, dest, m], log)
    os.unlink(deb)
    return files
