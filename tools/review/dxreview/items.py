# SPDX-License-Identifier: GPL-2.0
"""What a review reads in the kernel's source, per feature.

Each item is a text of the kernel whose change could make devmemx's body
wrong: a function the body replaces, one it re-implements or mirrors, a
caller whose contract it keeps, a struct whose fields it reads or fills,
a constant it copies. A feature passes the source review when every one
of its items reads as a text someone reviewed (tools/review/reviewed/).

Kinds (source.py finds each):
  function           a definition, from its head to its '}' at column 0
  macro              a #define and its continuation lines
  struct             'struct NAME {' to its '};' at column 0
  array-initializer  'TYPE NAME[...] = {' to its '};' at column 0
  element            ARRAY:TOKEN, the element of ARRAY's initializer
                     that names TOKEN (one genl op of a family's table)
  call               CALLER:CALLEE, the statement of CALLER calling CALLEE
  call-block         CALLER:CALLEE, the innermost block of CALLER around
                     that call
Where a file defines a name twice (a header's stub under #else), the
first definition is read.

An item's name is also its directory under reviewed/: no '/' in it.
"""

from collections import namedtuple

Item = namedtuple('Item', 'feature path kind name why')

TOKEN_ARRAY = 'token-array'
POLICIES = 'policies'
FEATURES = (TOKEN_ARRAY, POLICIES)

# The functions each feature redirects or hooks, by ftrace, in the order
# of the entry's sizes (--entry-c).
FUNCTIONS = {
    TOKEN_ARRAY: ('tcp_recvmsg_dmabuf', 'sock_devmem_dontneed',
                  'tcp_v4_destroy_sock'),
    POLICIES: ('netdev_nl_bind_rx_doit',),
}

_T, _P = TOKEN_ARRAY, POLICIES
TCP = 'net/ipv4/tcp.c'
SOCK = 'net/core/sock.c'
DEVMEM_H = 'net/core/devmem.h'
NETMEM_H = 'include/net/netmem.h'
GEN = 'net/core/netdev-genl-gen.c'

ITEMS = (
    # -- token-array: what is replaced, and its callers' contracts
    Item(_T, TCP, 'function', 'tcp_recvmsg_dmabuf',
         'replaced by devmemx_tok_recvmsg: its body must do what this does'),
    Item(_T, TCP, 'call-block', 'tcp_recvmsg_locked:tcp_recvmsg_dmabuf',
         'the only caller: socket locked, result read as bytes or -errno'),
    Item(_T, SOCK, 'function', 'sock_devmem_dontneed',
         'replaced by devmemx_tok_dontneed: same checks, limits and result'),
    Item(_T, SOCK, 'call', 'sk_setsockopt:sock_devmem_dontneed',
         'the only caller: its arguments, its result returned as is'),
    Item(_T, SOCK, 'macro', 'MAX_DONTNEED_TOKENS',
         'copied as DEVMEMX_TOK_MAX_ENTRIES'),
    Item(_T, SOCK, 'macro', 'MAX_DONTNEED_FRAGS',
         'copied as DEVMEMX_TOK_MAX_FRAGS'),
    Item(_T, 'net/ipv4/tcp_ipv4.c', 'function', 'tcp_v4_destroy_sock',
         'hooked at entry: the drain must come after nothing that reads '
         'sk_user_frags'),
    Item(_T, 'net/ipv4/tcp_ipv4.c', 'function', 'tcp_release_user_frags',
         "the drain the hook pre-empts and devmemx_tok_close mirrors: "
         "it puts every entry as a netmem"),
    # -- the socket's xarray: why index 2^32 and mark 2 are devmemx's
    Item(_T, TCP, 'call', 'tcp_init_sock:xa_init_flags',
         'sk_user_frags is XA_FLAGS_ALLOC1: marks 1-2 unused, devmemx takes 2'),
    Item(_T, 'net/ipv4/tcp_minisocks.c', 'call',
         'tcp_create_openreq_child:xa_init_flags',
         "a child's xarray starts empty: it never shares the parent's array"),
    Item(_T, TCP, 'function', 'tcp_xa_pool_refill',
         'in-tree tokens come from xa_limit_31b: index 2^32 is never '
         "the kernel's; lock is xa_lock_bh, as devmemx takes it"),
    Item(_T, TCP, 'function', 'tcp_xa_pool_commit_locked',
         'what in-tree stores in sk_user_frags (netmems, reserved zero '
         'entries) beside devmemx\'s entry'),
    Item(_T, TCP, 'function', 'tcp_xa_pool_commit',
         'its lock flavour on sk_user_frags (xa_lock_bh)'),
    # -- cmsg and put: mirrored by devmemx's body
    Item(_T, 'net/core/scm.c', 'function', 'put_cmsg_notrunc',
         'not exported: devmemx_tok_cmsg re-implements it (CMSG_LEN check, '
         '-ETOOSMALL)'),
    Item(_T, 'include/uapi/linux/uio.h', 'struct', 'dmabuf_cmsg',
         'filled by devmemx_tok_recvmsg'),
    Item(_T, 'include/uapi/linux/uio.h', 'struct', 'dmabuf_token',
         'read by devmemx_tok_dontneed'),
    # -- the niov, its owner and binding, as the body reads them
    Item(_T, DEVMEM_H, 'function', 'net_iov_virtual_addr',
         "mirrored for the cmsg's frag_offset (devmemx's niov_shift)"),
    Item(_T, DEVMEM_H, 'function', 'net_devmem_iov_binding_id',
         "mirrored for the cmsg's dmabuf_id"),
    Item(_T, DEVMEM_H, 'function', 'net_devmem_iov_binding',
         "where the stack finds a niov's binding: devmemx_tok_binding "
         "reads it the same way"),
    Item(_T, DEVMEM_H, 'function', 'net_devmem_iov_to_chunk_owner',
         'the owner is a container of the niov\'s net_iov_area'),
    Item(_T, DEVMEM_H, 'struct', 'dmabuf_genpool_chunk_owner',
         'devmemx_owner puts its binding where this has it'),
    Item(_T, NETMEM_H, 'struct', 'net_iov',
         'type, owner and desc.pp_ref_count are read and taken'),
    Item(_T, NETMEM_H, 'struct', 'net_iov_area',
         'niovs and base_virtual give the frag_offset'),
    Item(_T, NETMEM_H, 'function', 'net_iov_owner',
         'mirrored: the body reads niov->owner directly'),
    Item(_T, NETMEM_H, 'function', 'net_iov_idx',
         "mirrored: a niov's index in its area"),
    Item(_T, NETMEM_H, 'function', 'net_is_devmem_iov',
         'mirrored: the body tests type == NET_IOV_DMABUF'),

    # -- policies: the doit replaced, and how the family calls it
    Item(_P, 'net/core/netdev-genl.c', 'function', 'netdev_nl_bind_rx_doit',
         'replaced by devmemx_pol_doit: same checks, errors and reply'),
    Item(_P, 'net/core/netdev-genl.c', 'function', 'netdev_nl_read_rxq_bitmap',
         'mirrored by devmemx_pol_queues (each queue RX, in range)'),
    Item(_P, GEN, 'element', 'netdev_nl_ops:NETDEV_CMD_BIND_RX',
         "the op: its policy, maxattr (info->attrs' size), permission "
         "flags and no pre_doit"),
    Item(_P, GEN, 'array-initializer', 'netdev_bind_rx_nl_policy',
         'what the genl core validated before the doit: which attributes '
         'exist, their types'),
    Item(_P, GEN, 'array-initializer', 'netdev_queue_id_nl_policy',
         "the queue nests' policy, copied in devmemx_pol_queues' qpol"),
    Item(_P, 'net/core/dev.c', 'function', 'netdev_get_by_index_lock',
         'the doit finds and locks the device so; the body does it by '
         'netdev_get_by_index and netdev_lock'),
    Item(_P, 'net/core/dev.c', 'function', 'netdev_put_lock',
         "the device's checks once locked, which the body re-makes"),
)


def by_feature(feature):
    return [it for it in ITEMS if it.feature == feature]


def paths():
    return sorted({it.path for it in ITEMS})
