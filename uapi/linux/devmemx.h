/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/devmemx.yaml */
/* YNL-GEN uapi header */
/* To regenerate run: tools/net/ynl/ynl-regen.sh */

#ifndef _UAPI_LINUX_DEVMEMX_H
#define _UAPI_LINUX_DEVMEMX_H

#define DEVMEMX_FAMILY_NAME	"devmemx"
#define DEVMEMX_FAMILY_VERSION	1

/**
 * enum devmemx_feature - Kernel features devmemx detected when it was built.
 * @DEVMEMX_FEATURE_RX_PAGE_SIZE: Drivers can be asked for RX buffers larger
 *   than PAGE_SIZE (QCFG_RX_PAGE_SIZE).
 * @DEVMEMX_FEATURE_INTREE_LARGE_NIOV: The kernel's own devmem binds with niovs
 *   larger than PAGE_SIZE.
 */
enum devmemx_feature {
	DEVMEMX_FEATURE_RX_PAGE_SIZE = 1,
	DEVMEMX_FEATURE_INTREE_LARGE_NIOV = 2,
};

/**
 * enum devmemx_binding_flags
 * @DEVMEMX_BINDING_FLAGS_PERSISTENT: The binding outlives the socket that made
 *   it; it ends on unbind, when its device goes away or moves to another
 *   network namespace, or when the network namespace it was made in goes.
 */
enum devmemx_binding_flags {
	DEVMEMX_BINDING_FLAGS_PERSISTENT = 1,
};

/**
 * enum devmemx_binding_state - Where a binding stands, as its own network
 *   namespace sees it.
 * @DEVMEMX_BINDING_STATE_BOUND: On its queues, its device in this network
 *   namespace (a move to another one ends the binding).
 * @DEVMEMX_BINDING_STATE_DRAINING: Ended (unbound, or its device went); its
 *   memory goes once the sockets hand back the buffers they still hold.
 */
enum devmemx_binding_state {
	DEVMEMX_BINDING_STATE_BOUND,
	DEVMEMX_BINDING_STATE_DRAINING,
};

/*
 * ethtool's tcp-data-split setting, with the values of enum
 * ethtool_tcp_data_split (linux/ethtool.h): named here so that replies decode
 * by name, and so that YNL's generated C clients have the type.
 */
enum devmemx_tcp_data_split {
	DEVMEMX_TCP_DATA_SPLIT_UNKNOWN,
	DEVMEMX_TCP_DATA_SPLIT_DISABLED,
	DEVMEMX_TCP_DATA_SPLIT_ENABLED,
};

/*
 * RX buffer (niov) sizes, as bits of rx-buf-sizes: bit n for 2^n bytes. The
 * spec's names are lowercase; the CLI prints them as it reads sizes (4K).
 */
enum devmemx_rx_buf_size {
	DEVMEMX_RX_BUF_SIZE_4K = 4096,
	DEVMEMX_RX_BUF_SIZE_8K = 8192,
	DEVMEMX_RX_BUF_SIZE_16K = 16384,
	DEVMEMX_RX_BUF_SIZE_32K = 32768,
	DEVMEMX_RX_BUF_SIZE_64K = 65536,
	DEVMEMX_RX_BUF_SIZE_128K = 131072,
	DEVMEMX_RX_BUF_SIZE_256K = 262144,
	DEVMEMX_RX_BUF_SIZE_512K = 524288,
	DEVMEMX_RX_BUF_SIZE_1M = 1048576,
};

/**
 * enum devmemx_autorelease - How a binding's tokens come back (upstream's name
 *   and values).
 * @DEVMEMX_AUTORELEASE_TOKEN_ARRAY: Tokens are niov indices, returned without
 *   the socket's xarray; those a socket holds at close go back with it.
 * @DEVMEMX_AUTORELEASE_XARRAY: Tokens live in the socket's xarray (the in-tree
 *   behaviour).
 */
enum devmemx_autorelease {
	DEVMEMX_AUTORELEASE_TOKEN_ARRAY,
	DEVMEMX_AUTORELEASE_XARRAY,
};

/**
 * enum devmemx_token_array - Whether bindings can use the token array
 *   (autorelease token-array).
 * @DEVMEMX_TOKEN_ARRAY_UNAVAILABLE: Not on this kernel; token-array-why says
 *   why.
 * @DEVMEMX_TOKEN_ARRAY_READY: A reviewed kernel whose checks passed: bindings
 *   may ask for autorelease token-array, and the first one hooks the token
 *   path.
 * @DEVMEMX_TOKEN_ARRAY_HOOKED: The token path's hooks are in place, while a
 *   token-array binding, or a socket that received from one, is left.
 */
enum devmemx_token_array {
	DEVMEMX_TOKEN_ARRAY_UNAVAILABLE,
	DEVMEMX_TOKEN_ARRAY_READY,
	DEVMEMX_TOKEN_ARRAY_HOOKED,
};

/**
 * enum devmemx_policies - Whether policies can be set: netdev's own bind-rx
 *   served by devmemx for a device an administrator chose (policy-set).
 * @DEVMEMX_POLICIES_UNAVAILABLE: Not on this kernel; policies-why says why.
 * @DEVMEMX_POLICIES_READY: A reviewed kernel whose checks passed: policy-set
 *   takes a policy, and the first one hooks netdev's bind-rx.
 * @DEVMEMX_POLICIES_HOOKED: netdev's bind-rx is hooked, while a policy is left
 *   in any namespace.
 */
enum devmemx_policies {
	DEVMEMX_POLICIES_UNAVAILABLE,
	DEVMEMX_POLICIES_READY,
	DEVMEMX_POLICIES_HOOKED,
};

enum {
	DEVMEMX_A_INFO_VERSION = 1,
	DEVMEMX_A_INFO_KERNEL,
	DEVMEMX_A_INFO_FEATURES,
	DEVMEMX_A_INFO_HOOKS,
	DEVMEMX_A_INFO_BINDINGS,
	DEVMEMX_A_INFO_NIOVS,
	DEVMEMX_A_INFO_PAGE_POOLS,
	DEVMEMX_A_INFO_TOKEN_ARRAY,
	DEVMEMX_A_INFO_TOKEN_ARRAY_WHY,
	DEVMEMX_A_INFO_TOKEN_SOCKETS,
	DEVMEMX_A_INFO_TOKEN_BYTES,
	DEVMEMX_A_INFO_POLICIES,
	DEVMEMX_A_INFO_POLICIES_WHY,

	__DEVMEMX_A_INFO_MAX,
	DEVMEMX_A_INFO_MAX = (__DEVMEMX_A_INFO_MAX - 1)
};

enum {
	DEVMEMX_A_QUEUE_ID = 1,
	DEVMEMX_A_QUEUE_BUF_SIZE,
	DEVMEMX_A_QUEUE_LEASE_QUEUE,

	__DEVMEMX_A_QUEUE_MAX,
	DEVMEMX_A_QUEUE_MAX = (__DEVMEMX_A_QUEUE_MAX - 1)
};

enum {
	DEVMEMX_A_CARVE_NIOV_SIZE = 1,
	DEVMEMX_A_CARVE_NIOV_COUNT,
	DEVMEMX_A_CARVE_BYTES_CARVED,
	DEVMEMX_A_CARVE_BYTES_WASTED,
	DEVMEMX_A_CARVE_METADATA_BYTES,
	DEVMEMX_A_CARVE_METADATA_FITS,
	DEVMEMX_A_CARVE_INTREE_ALIGNED,

	__DEVMEMX_A_CARVE_MAX,
	DEVMEMX_A_CARVE_MAX = (__DEVMEMX_A_CARVE_MAX - 1)
};

enum {
	DEVMEMX_A_BINDING_ID = 1,
	DEVMEMX_A_BINDING_IFINDEX,
	DEVMEMX_A_BINDING_FD,
	DEVMEMX_A_BINDING_QUEUES,
	DEVMEMX_A_BINDING_RX_BUF_SIZE,
	DEVMEMX_A_BINDING_FLAGS,
	DEVMEMX_A_BINDING_NIOV_SIZE,
	DEVMEMX_A_BINDING_NIOV_COUNT,
	DEVMEMX_A_BINDING_BYTES_CARVED,
	DEVMEMX_A_BINDING_BYTES_WASTED,
	DEVMEMX_A_BINDING_NIOVS_FREE,
	DEVMEMX_A_BINDING_NIOVS_IN_USE,
	DEVMEMX_A_BINDING_NIOVS_HIGH_WATER,
	DEVMEMX_A_BINDING_ALLOC_FAILURES,
	DEVMEMX_A_BINDING_DMABUF_SIZE,
	DEVMEMX_A_BINDING_CREATOR_PID,
	DEVMEMX_A_BINDING_PAGE_POOLS,
	DEVMEMX_A_BINDING_METADATA_BYTES,
	DEVMEMX_A_BINDING_POOLS_OTHER_SIZE,
	DEVMEMX_A_BINDING_OTHER_SIZE_NS,
	DEVMEMX_A_BINDING_STATE,
	DEVMEMX_A_BINDING_CARVE,
	DEVMEMX_A_BINDING_DMABUF_INO,
	DEVMEMX_A_BINDING_EXPORTER,
	DEVMEMX_A_BINDING_AUTORELEASE,
	DEVMEMX_A_BINDING_POLICY,
	DEVMEMX_A_BINDING_LEASE_IFINDEX,

	__DEVMEMX_A_BINDING_MAX,
	DEVMEMX_A_BINDING_MAX = (__DEVMEMX_A_BINDING_MAX - 1)
};

enum {
	DEVMEMX_A_CAPS_IFINDEX = 1,
	DEVMEMX_A_CAPS_QUEUE_ID,
	DEVMEMX_A_CAPS_DRIVER,
	DEVMEMX_A_CAPS_TCP_DATA_SPLIT,
	DEVMEMX_A_CAPS_HDS_THRESH,
	DEVMEMX_A_CAPS_RX_PAGE_SIZE,
	DEVMEMX_A_CAPS_RX_BUF_SIZES,
	DEVMEMX_A_CAPS_QUEUES,
	DEVMEMX_A_CAPS_DMA_BOUNCE,

	__DEVMEMX_A_CAPS_MAX,
	DEVMEMX_A_CAPS_MAX = (__DEVMEMX_A_CAPS_MAX - 1)
};

enum {
	DEVMEMX_A_POLICY_IFINDEX = 1,
	DEVMEMX_A_POLICY_RX_BUF_SIZE,
	DEVMEMX_A_POLICY_QUEUES,
	DEVMEMX_A_POLICY_BINDINGS,

	__DEVMEMX_A_POLICY_MAX,
	DEVMEMX_A_POLICY_MAX = (__DEVMEMX_A_POLICY_MAX - 1)
};

enum {
	DEVMEMX_CMD_INFO = 1,
	DEVMEMX_CMD_BIND_RX,
	DEVMEMX_CMD_UNBIND,
	DEVMEMX_CMD_BINDING_GET,
	DEVMEMX_CMD_CAPS_GET,
	DEVMEMX_CMD_BIND_CHECK,
	DEVMEMX_CMD_POLICY_SET,
	DEVMEMX_CMD_POLICY_DEL,
	DEVMEMX_CMD_POLICY_GET,

	__DEVMEMX_CMD_MAX,
	DEVMEMX_CMD_MAX = (__DEVMEMX_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_DEVMEMX_H */
