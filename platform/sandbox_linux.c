/*
 * sandbox_linux.c -- pfx_sandbox_confine() on Linux: Landlock, then
 * PR_SET_NO_NEW_PRIVS, then a seccomp filter (see pfx_sandbox.h).
 *
 * Threat model: the archive's bytes reach libarchive and the compression
 * libraries, large parsers written in C.  If one of them is exploited,
 * the attacker runs code in our process with our rights; every check in
 * extract/ and platform/ is then theirs to skip.  What still holds is
 * what the kernel enforces, so the process is confined before the first
 * archive byte is decoded, when the archive and the destination are
 * already open and nothing else needs a path.
 *
 * Landlock (Linux 5.13 and later) does the filesystem part.  The ruleset
 * handles every right the running kernel's ABI knows, so whatever is not
 * granted by a rule is refused: beneath the destination, reading,
 * writing, truncating, removing, making directories and regular files,
 * and moving them within it (REFER); never execution, no device
 * ioctls.  Making a symlink, FIFO or socket, and with the filter a
 * device node, is granted because Landlock asks for it to move an
 * existing one (a backup, the journal): the filter refuses making any
 * of them (mknod, bind; symlink unless asked for).
 * Beneath /usr, and the three NSS files that owner lookups read, reading
 * only.  Nothing elsewhere.  ABI 1 (Linux 5.13 to 5.18) is not used: it
 * has no REFER right, so it refuses every link or rename from one
 * directory to another, which would turn hard-link entries into
 * refusals; the filesystem is then not confined and INFO says so.  From
 * ABI 4, TCP bind and connect are handled with no rule (refused); from
 * ABI 6, abstract UNIX sockets and signals (not with
 * PLAT_SANDBOX_SIGNAL_OUT) are scoped to the domain.
 * Landlock checks at open time: descriptors opened before confinement
 * (the archive, stdout) keep working.
 *
 * Landlock has no right for a file's mode, owner, times or extended
 * attributes, and does not see O_PATH opens.  With a destination and
 * CAP_SYS_ADMIN, the process first gets a mount namespace of its own in
 * which every mount is read-only but a tree rooted at the destination's
 * parent (plat_view_readonly(), view_linux.c): those changes are then
 * refused everywhere else, however the file is reached.  An ordinary
 * user's process gets the same in a user namespace, its ids mapped to
 * themselves and its capabilities there dropped.
 *
 * The seccomp filter is a deny-list, written by hand in classic BPF (no
 * libseccomp).  Why not an allow-list: the system calls that a correct
 * run makes are chosen by glibc, libarchive and the compression
 * libraries, not by us, and they change from one version to the next
 * (clone3 for threads in glibc 2.34, rseq in 2.35, fstatat becoming
 * newfstatat or statx, openat2, getrandom, ...).  An allow-list that is
 * right for one Debian release kills the process on the next; a wrong
 * deny-list entry only refuses one call we never make.  Landlock
 * confines where the filesystem may be touched; the filter refuses the
 * rest: no program is executed, no socket made, no process traced, no
 * namespace or mount, no module, keyring, bpf, perf, io_uring or
 * userfaultfd (the usual kernel attack surface), no device node, no
 * change of identity, clock or host.  It also decides on arguments,
 * which Landlock cannot:
 *
 *   - Threads, but no new process: clone only with CLONE_THREAD, never
 *     with a CLONE_NEW* flag; fork and vfork refused; clone3, whose flags
 *     a filter cannot read, says ENOSYS so that glibc falls back to
 *     clone.  A confined process cannot leave a grandchild behind.
 *   - No keystrokes pushed into a terminal: ioctl with TIOCSTI or
 *     TIOCLINUX.
 *   - Signals to itself only (abort, raise, pthread_kill): kill, tgkill,
 *     rt_sigqueueinfo and rt_tgsigqueueinfo must name the pid it had
 *     when confined; tkill and pidfd_send_signal are refused.  Without
 *     this, only Landlock ABI 6 (Linux 6.12) scopes signals.  A parent
 *     that must kill a child it made before confining itself asks for
 *     PLAT_SANDBOX_SIGNAL_OUT: no signal rule, and no Landlock signal
 *     scope.
 *     Nor through a descriptor's owner, which the kernel signals when
 *     I/O comes (O_ASYNC, with any signal F_SETSIG names): F_SETOWN must
 *     name the process itself (or 0); F_SETOWN_EX, and the ioctls
 *     FIOSETOWN and SIOCSPGRP (pointers), are refused.
 *   - Nor, under the same rule, a change of another process's scheduling:
 *     setpriority, sched_setscheduler, sched_setparam, sched_setattr,
 *     sched_setaffinity, ioprio_set, migrate_pages and move_pages must
 *     name the process itself (or 0); process_madvise and
 *     process_mrelease (a descriptor) are refused whole.  Without this,
 *     a process taken over moves its parent, or every process of its
 *     user (PRIO_USER), to nice 19, SCHED_IDLE, idle I/O and one CPU,
 *     which outlives the run; no signal is needed for that.
 *   - Nor, under the same rule, a way out of its parent's reach: setpgid
 *     and setsid refused (it stays in the process group its parent
 *     kills), prctl PR_SET_PDEATHSIG refused unless SIGKILL (it still
 *     dies with its parent).  A decoder process behind a relay
 *     (platform/relay.c) that did both, and ignored SIGTERM, outlived
 *     the run: the relay ends on SIGTERM and is reaped, after which its
 *     group is no longer killed.
 *   - No extended attribute or attribute flag changed by path (setxattr,
 *     lsetxattr, removexattr, lremovexattr, setxattrat, removexattrat,
 *     file_setattr), which Landlock does not see: only through a
 *     descriptor, as the writer sets them on the files it made.  A
 *     file's mode and times by path stay possible where the destination
 *     is (chmod, utimensat): the filter cannot tell a name outside it;
 *     the read-only mounts above refuse them, where they can be made.
 *   - No set-id or sticky bit and no owner change, unless
 *     PFX_SANDBOX_SETID: chmod, fchmod, fchmodat and fchmodat2 with a
 *     mode holding any of 07000, open, openat and creat that create
 *     (O_CREAT, O_TMPFILE) with such a mode, and every chown call.
 *   - With PFX_SANDBOX_NO_DEST, nothing written even where Landlock is
 *     missing: open and openat with a flag that writes or creates, every
 *     call that makes, removes, renames, links, truncates or allocates a
 *     file, changes its mode, owner, times, extended attributes
 *     (setxattrat and removexattrat too) or attribute flags
 *     (file_setattr);
 *     openat2 says ENOSYS (its flags are in a struct the filter cannot
 *     read), and libc falls back to openat.
 *
 *   - With PLAT_SANDBOX_DECODER (the decoder process, the code an
 *     archive may take over): ioctl and fcntl only with the requests of
 *     an allow-list, those that read or act on the descriptor alone;
 *     flock, io_setup, inotify, System V IPC, POSIX message queues,
 *     memfds, socket pairs and shared anonymous mappings refused (see
 *     sb_decoder_denied and build_decoder_rules()).
 *
 * The filter decides on the low 32 bits of each argument (all the flags,
 * modes and pids it reads are 32-bit).  What no filter can refuse:
 * writes through a descriptor already open, and, where the destination
 * is writable, openat2 with a set-id mode (its mode is in the struct
 * too); see pfx_sandbox.h.
 *
 * Sanitizer builds (make check's obj/san/) keep three holes that
 * LeakSanitizer needs at exit to stop the threads and read their memory
 * maps: ptrace(2) is allowed, clone with CLONE_VM and without
 * CLONE_THREAD (its tracer, a process sharing our memory) is allowed,
 * and /proc/self may be read.  Release builds have none.  (Its tracer
 * sends no signal to another process: no hole is needed there.)
 *
 * The filter first checks the architecture (chosen at compile time;
 * another one, such as a 32-bit entry on a 64-bit kernel, kills the
 * process, since its system-call numbers mean other calls) and on x86_64
 * kills x32 system-call numbers for the same reason.  It is built
 * anew by each call of plat_sandbox_confine(), as it depends on the
 * flags and on the pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>

#include "platform.h"
#include "pfx_sandbox.h"

/* Landlock's system calls and rights, where the headers are older. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)		/* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)	/* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)	/* ABI 4 */
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)	/* ABI 4 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)		/* ABI 6 */
#endif

/* The rights of ABI 1, bits 0 (EXECUTE) to 12 (MAKE_SYM). */
#define SB_FS_ABI1 ((1ULL << 13) - 1)

/* Rights a rule on a file (not a directory) may carry. */
#define SB_FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | \
    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define SB_FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | \
    LANDLOCK_ACCESS_FS_READ_DIR)

/*
 * What an extractor does beneath its destination.  Landlock asks for the
 * right to make a symlink, FIFO or socket to move one, too: an existing
 * one that --backup or --atomic's journal moves aside.  So those rights
 * are granted, and the filter refuses making any of them: mknod, mknodat
 * and bind always, symlink and symlinkat unless symlinks were asked for
 * (build_file_rules()).  So too for a device node (a root's dev/null),
 * but only where that filter is loaded (SB_FS_DEVICES).
 */
#define SB_FS_DEST (SB_FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REFER | \
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
    LANDLOCK_ACCESS_FS_MAKE_SOCK)

/*
 * Landlock's rights to make a device node, which it asks for to move an
 * existing one too: granted beneath the destination only with the filter,
 * which refuses mknod and mknodat whole, so that none is ever made.
 */
#define SB_FS_DEVICES (LANDLOCK_ACCESS_FS_MAKE_CHAR | \
    LANDLOCK_ACCESS_FS_MAKE_BLOCK)

/*
 * struct landlock_ruleset_attr as of ABI 6; older headers stop after
 * handled_access_fs.  The kernel reads only the size it is given.
 */
struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

/*
 * ASan's leak check at exit traces the process's own threads and reads
 * /proc/self (see the head comment).  gcc says __SANITIZE_ADDRESS__;
 * clang says __has_feature(address_sanitizer).
 */
#if defined(__SANITIZE_ADDRESS__)
#define SB_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define SB_SANITIZER 1
#endif
#endif
#ifndef SB_SANITIZER
#define SB_SANITIZER 0
#endif

/* Where the system files that hold no secret are: read-only rules. */
static const char *const sb_read_dirs[] = { "/usr" };

/*
 * What owner-name lookups (--same-owner) read; glibc 2.36's nss_files is
 * inside libc, so no module has to be loaded.  Absent ones are skipped.
 */
static const char *const sb_read_files[] = {
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf"
};

/*
 * The architecture the filter accepts, chosen at compile time.  0: none
 * known here, and no filter is loaded.
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SB_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SB_X32_BIT 0x40000000u	/* __X32_SYSCALL_BIT */
#elif defined(__aarch64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define SB_X32_BIT 0u
#else
#define SB_AUDIT_ARCH 0u
#define SB_X32_BIT 0u
#endif

/* The flags of clone(2) that make a new namespace (not CLONE_NEWTIME:
 * 0x80 is part of clone's exit-signal byte; unshare is refused whole). */
#define SB_CLONE_NEW (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/*
 * What clone(2) must have to be let through: a thread.  Sanitizer builds
 * also let a clone that shares the memory through (CLONE_VM, as
 * LeakSanitizer's StopTheWorld makes its tracer), a process that can
 * outlive the run: see the head comment.
 */
#define SB_CLONE_OK (SB_SANITIZER ? CLONE_THREAD | CLONE_VM : CLONE_THREAD)

/*
 * The bit of O_TMPFILE that is not O_DIRECTORY (the kernel's
 * __O_TMPFILE; glibc's includes O_DIRECTORY), and the open(2) flags that
 * may write.
 */
#define SB_O_TMPFILE ((uint32_t)O_TMPFILE & ~(uint32_t)O_DIRECTORY)
#define SB_O_WRITE ((uint32_t)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) | \
    SB_O_TMPFILE)

/* The set-user-ID, set-group-ID and sticky bits of a mode. */
#define SB_SETID_BITS 07000u

/* fchmodat2 (Linux 6.6), where the headers are older: 452 on both. */
#if !defined(SYS_fchmodat2) && SB_AUDIT_ARCH != 0
#define SYS_fchmodat2 452
#endif

/* setxattrat and removexattrat (Linux 6.13), file_setattr (6.17), where
 * the headers are older: one number on every architecture since 424. */
#if !defined(SYS_setxattrat) && SB_AUDIT_ARCH != 0
#define SYS_setxattrat 463
#endif
#if !defined(SYS_removexattrat) && SB_AUDIT_ARCH != 0
#define SYS_removexattrat 466
#endif
#if !defined(SYS_file_setattr) && SB_AUDIT_ARCH != 0
#define SYS_file_setattr 469
#endif

/* open_tree_attr (Linux 6.15), where the headers are older: the same
 * number on every architecture since 424. */
#if !defined(SYS_open_tree_attr) && SB_AUDIT_ARCH != 0
#define SYS_open_tree_attr 467
#endif

/*
 * The low 32 bits of system-call argument I in struct seccomp_data; a
 * classic BPF load reads 32 bits, and the filter decides on those.
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SB_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#define SB_ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define SB_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define SB_ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

/*
 * What the filter refuses with EPERM: what an extractor never needs.
 * Each is guarded, as not every architecture has every call.
 */
static const int sb_denied[] = {
	/* Running programs. */
#ifdef SYS_execve
	SYS_execve,
#endif
#ifdef SYS_execveat
	SYS_execveat,
#endif
	/* Networking: no new socket, no connect, no listening. */
#ifdef SYS_socket
	SYS_socket,
#endif
#ifdef SYS_connect
	SYS_connect,
#endif
#ifdef SYS_bind
	SYS_bind,
#endif
#ifdef SYS_listen
	SYS_listen,
#endif
#ifdef SYS_accept
	SYS_accept,
#endif
#ifdef SYS_accept4
	SYS_accept4,
#endif
	/* Other processes. */
#if defined(SYS_ptrace) && !SB_SANITIZER
	SYS_ptrace,
#endif
#ifdef SYS_process_vm_readv
	SYS_process_vm_readv,
#endif
#ifdef SYS_process_vm_writev
	SYS_process_vm_writev,
#endif
#ifdef SYS_pidfd_getfd
	SYS_pidfd_getfd,
#endif
	/* Mounts and namespaces, old and new mount API. */
#ifdef SYS_mount
	SYS_mount,
#endif
#ifdef SYS_umount2
	SYS_umount2,
#endif
#ifdef SYS_pivot_root
	SYS_pivot_root,
#endif
#ifdef SYS_chroot
	SYS_chroot,
#endif
#ifdef SYS_unshare
	SYS_unshare,
#endif
#ifdef SYS_setns
	SYS_setns,
#endif
#ifdef SYS_open_tree
	SYS_open_tree,
#endif
#ifdef SYS_move_mount
	SYS_move_mount,
#endif
#ifdef SYS_fsopen
	SYS_fsopen,
#endif
#ifdef SYS_fsconfig
	SYS_fsconfig,
#endif
#ifdef SYS_fsmount
	SYS_fsmount,
#endif
#ifdef SYS_fspick
	SYS_fspick,
#endif
#ifdef SYS_mount_setattr
	SYS_mount_setattr,
#endif
	/* SECURITY: open_tree with attributes: a clone of any mount, its
	 * read-only flag cleared, undid the read-only mounts of the view
	 * (view_linux.c) -- a chmod 0666 of any file through it. */
#ifdef SYS_open_tree_attr
	SYS_open_tree_attr,
#endif
	/* Kernel modules and kexec. */
#ifdef SYS_init_module
	SYS_init_module,
#endif
#ifdef SYS_finit_module
	SYS_finit_module,
#endif
#ifdef SYS_delete_module
	SYS_delete_module,
#endif
#ifdef SYS_kexec_load
	SYS_kexec_load,
#endif
#ifdef SYS_kexec_file_load
	SYS_kexec_file_load,
#endif
	/* Keyrings. */
#ifdef SYS_add_key
	SYS_add_key,
#endif
#ifdef SYS_request_key
	SYS_request_key,
#endif
#ifdef SYS_keyctl
	SYS_keyctl,
#endif
	/* Kernel attack surface an extractor has no use for. */
#ifdef SYS_bpf
	SYS_bpf,
#endif
#ifdef SYS_perf_event_open
	SYS_perf_event_open,
#endif
#ifdef SYS_userfaultfd
	SYS_userfaultfd,
#endif
#ifdef SYS_io_uring_setup
	SYS_io_uring_setup,
#endif
#ifdef SYS_io_uring_enter
	SYS_io_uring_enter,
#endif
#ifdef SYS_io_uring_register
	SYS_io_uring_register,
#endif
#ifdef SYS_open_by_handle_at
	SYS_open_by_handle_at,
#endif
#ifdef SYS_name_to_handle_at
	SYS_name_to_handle_at,
#endif
#ifdef SYS_fanotify_init
	SYS_fanotify_init,
#endif
#ifdef SYS_uselib
	SYS_uselib,
#endif
	/* Device nodes and FIFOs (Landlock refuses them too). */
#ifdef SYS_mknod
	SYS_mknod,
#endif
#ifdef SYS_mknodat
	SYS_mknodat,
#endif
	/* Changing identity. */
#ifdef SYS_setuid
	SYS_setuid,
#endif
#ifdef SYS_setgid
	SYS_setgid,
#endif
#ifdef SYS_setreuid
	SYS_setreuid,
#endif
#ifdef SYS_setregid
	SYS_setregid,
#endif
#ifdef SYS_setresuid
	SYS_setresuid,
#endif
#ifdef SYS_setresgid
	SYS_setresgid,
#endif
#ifdef SYS_setfsuid
	SYS_setfsuid,
#endif
#ifdef SYS_setfsgid
	SYS_setfsgid,
#endif
#ifdef SYS_setgroups
	SYS_setgroups,
#endif
#ifdef SYS_personality
	SYS_personality,
#endif
	/* The machine: swap, reboot, logs, accounting, quotas, ports,
	 * clocks, names, terminals. */
#ifdef SYS_swapon
	SYS_swapon,
#endif
#ifdef SYS_swapoff
	SYS_swapoff,
#endif
#ifdef SYS_reboot
	SYS_reboot,
#endif
#ifdef SYS_syslog
	SYS_syslog,
#endif
#ifdef SYS_acct
	SYS_acct,
#endif
#ifdef SYS_quotactl
	SYS_quotactl,
#endif
#ifdef SYS_quotactl_fd
	SYS_quotactl_fd,
#endif
#ifdef SYS_iopl
	SYS_iopl,
#endif
#ifdef SYS_ioperm
	SYS_ioperm,
#endif
#ifdef SYS_settimeofday
	SYS_settimeofday,
#endif
#ifdef SYS_clock_settime
	SYS_clock_settime,
#endif
#ifdef SYS_adjtimex
	SYS_adjtimex,
#endif
#ifdef SYS_clock_adjtime
	SYS_clock_adjtime,
#endif
#ifdef SYS_sethostname
	SYS_sethostname,
#endif
#ifdef SYS_setdomainname
	SYS_setdomainname,
#endif
#ifdef SYS_vhangup
	SYS_vhangup,
#endif
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The calls that create a file with a mode, and the argument holding it:
 * without PFX_SANDBOX_SETID a set-id or sticky mode is refused, with
 * PFX_SANDBOX_NO_DEST the call is.  (creat(2) always creates.)  openat2's
 * mode lives in a struct open_how the filter cannot read: see
 * build_filter().  mknod and mknodat are refused whole (sb_denied).
 */
struct sb_mode_call {
	int nr;
	unsigned int mode;	/* the argument that is the mode */
};

static const struct sb_mode_call sb_mode_calls[] = {
#ifdef SYS_chmod
	{ SYS_chmod, 1 },
#endif
#ifdef SYS_fchmod
	{ SYS_fchmod, 1 },
#endif
#ifdef SYS_fchmodat
	{ SYS_fchmodat, 2 },
#endif
#ifdef SYS_fchmodat2
	{ SYS_fchmodat2, 2 },
#endif
#ifdef SYS_creat
	{ SYS_creat, 1 },
#endif
};

/*
 * open(2) and openat(2): the flags argument, and the mode, which counts
 * when the flags create (O_CREAT or O_TMPFILE).
 */
struct sb_open_call {
	int nr;
	unsigned int flags, mode;
};

static const struct sb_open_call sb_open_calls[] = {
#ifdef SYS_open
	{ SYS_open, 1, 2 },
#endif
#ifdef SYS_openat
	{ SYS_openat, 2, 3 },
#endif
};

/* Changing owners: refused whole without PFX_SANDBOX_SETID. */
static const int sb_chown_calls[] = {
#ifdef SYS_chown
	SYS_chown,
#endif
#ifdef SYS_fchown
	SYS_fchown,
#endif
#ifdef SYS_lchown
	SYS_lchown,
#endif
#ifdef SYS_fchownat
	SYS_fchownat,
#endif
};

/*
 * With PFX_SANDBOX_NO_DEST: every call that changes a file by name or
 * through a descriptor, besides sb_mode_calls, sb_open_calls and
 * sb_chown_calls, so that nothing is written even without Landlock.
 */
static const int sb_write_calls[] = {
#ifdef SYS_mkdir
	SYS_mkdir,
#endif
#ifdef SYS_mkdirat
	SYS_mkdirat,
#endif
#ifdef SYS_unlink
	SYS_unlink,
#endif
#ifdef SYS_unlinkat
	SYS_unlinkat,
#endif
#ifdef SYS_rmdir
	SYS_rmdir,
#endif
#ifdef SYS_rename
	SYS_rename,
#endif
#ifdef SYS_renameat
	SYS_renameat,
#endif
#ifdef SYS_renameat2
	SYS_renameat2,
#endif
#ifdef SYS_link
	SYS_link,
#endif
#ifdef SYS_linkat
	SYS_linkat,
#endif
#ifdef SYS_symlink
	SYS_symlink,
#endif
#ifdef SYS_symlinkat
	SYS_symlinkat,
#endif
#ifdef SYS_truncate
	SYS_truncate,
#endif
#ifdef SYS_ftruncate
	SYS_ftruncate,
#endif
#ifdef SYS_fallocate
	SYS_fallocate,
#endif
#ifdef SYS_utime
	SYS_utime,
#endif
#ifdef SYS_utimes
	SYS_utimes,
#endif
#ifdef SYS_utimensat
	SYS_utimensat,
#endif
#ifdef SYS_futimesat
	SYS_futimesat,
#endif
	/* Those by path: sb_path_attr_calls, for every process. */
#ifdef SYS_fsetxattr
	SYS_fsetxattr,
#endif
#ifdef SYS_fremovexattr
	SYS_fremovexattr,
#endif
};

/*
 * Every confined process: the calls that change a file's extended
 * attributes or attribute flags by its path, which Landlock does not
 * see (it has no right for them), and which need no descriptor of the
 * file: a process taken over, as root, set security.capability on any
 * program, anywhere; a decoder set a user.* attribute on files outside
 * by setxattrat(2) (Linux 6.13), and file_setattr(2) (6.17) sets the
 * attribute flags that the ioctl allow-list keeps from it
 * (sb_decoder_ioctls).  pfextract sets attributes only through the
 * descriptor of a file it made (fsetxattr).
 */
static const int sb_path_attr_calls[] = {
#ifdef SYS_setxattr
	SYS_setxattr,
#endif
#ifdef SYS_lsetxattr
	SYS_lsetxattr,
#endif
#ifdef SYS_removexattr
	SYS_removexattr,
#endif
#ifdef SYS_lremovexattr
	SYS_lremovexattr,
#endif
#ifdef SYS_setxattrat
	SYS_setxattrat,
#endif
#ifdef SYS_removexattrat
	SYS_removexattrat,
#endif
#ifdef SYS_file_setattr
	SYS_file_setattr,
#endif
};

/*
 * Signals that name their target: the argument that is the process (the
 * thread group), which must be the confined process itself.  tkill(2)
 * names a thread of any process and pidfd_send_signal(2) a descriptor,
 * which the filter cannot tie to a process: both refused whole.
 */
static const int sb_signal_calls[] = {
#ifdef SYS_kill
	SYS_kill,
#endif
#ifdef SYS_tgkill
	SYS_tgkill,
#endif
#ifdef SYS_rt_sigqueueinfo
	SYS_rt_sigqueueinfo,
#endif
#ifdef SYS_rt_tgsigqueueinfo
	SYS_rt_tgsigqueueinfo,
#endif
};

static const int sb_signal_denied[] = {
#ifdef SYS_tkill
	SYS_tkill,
#endif
#ifdef SYS_pidfd_send_signal
	SYS_pidfd_send_signal,
#endif
};

/*
 * Scheduling that names its target in argument 0: the process itself or
 * 0 (itself) only.  setpriority and ioprio_set have a block of their own
 * (argument 0 says what argument 1 names).
 */
static const int sb_sched_calls[] = {
#ifdef SYS_sched_setscheduler
	SYS_sched_setscheduler,
#endif
#ifdef SYS_sched_setparam
	SYS_sched_setparam,
#endif
#ifdef SYS_sched_setattr
	SYS_sched_setattr,
#endif
#ifdef SYS_sched_setaffinity
	SYS_sched_setaffinity,
#endif
#ifdef SYS_migrate_pages
	SYS_migrate_pages,
#endif
#ifdef SYS_move_pages
	SYS_move_pages,
#endif
};

/* Scheduling through a process descriptor: refused whole, as
 * pidfd_send_signal is. */
static const int sb_sched_denied[] = {
#ifdef SYS_process_madvise
	SYS_process_madvise,
#endif
#ifdef SYS_process_mrelease
	SYS_process_mrelease,
#endif
};

/* Leaving its process group or session (see build_lifetime_rules()). */
static const int sb_group_calls[] = {
#ifdef SYS_setpgid
	SYS_setpgid,
#endif
#ifdef SYS_setsid
	SYS_setsid,
#endif
};

/* setpriority(2)'s and ioprio_set(2)'s "a process" (PRIO_PROCESS,
 * IOPRIO_WHO_PROCESS). */
#define SB_PRIO_PROCESS 0u
#define SB_IOPRIO_WHO_PROCESS 1u

/* New processes: fork and vfork (clone has a block of its own). */
static const int sb_fork_calls[] = {
#ifdef SYS_fork
	SYS_fork,
#endif
#ifdef SYS_vfork
	SYS_vfork,
#endif
};

/*
 * PLAT_SANDBOX_DECODER: calls refused whole.  System V IPC and POSIX
 * message queues name their objects by key or in a namespace of their
 * own, which Landlock does not see: a decoder taken over attached the
 * shared memory segment of another process of its user (any, as root:
 * SHM_STAT lists them all) and wrote into it, and left segments, queues
 * and semaphore sets that outlive the run.  A memfd, a segment and a
 * socket pair hold memory that RLIMIT_DATA does not count (shmem, the
 * kernel's socket buffers): 1 GiB each over a limit of 576 MiB.  A lock
 * on the archive (flock(2), as fcntl's are refused: sb_decoder_fcntls)
 * makes any other process that locks it wait; io_setup(2) takes events
 * from the system's whole budget (fs.aio-max-nr), and another process's
 * then fail.  The decoder needs none of them.
 */
static const int sb_decoder_denied[] = {
#ifdef SYS_shmget
	SYS_shmget,
#endif
#ifdef SYS_shmat
	SYS_shmat,
#endif
#ifdef SYS_shmctl
	SYS_shmctl,
#endif
#ifdef SYS_msgget
	SYS_msgget,
#endif
#ifdef SYS_msgsnd
	SYS_msgsnd,
#endif
#ifdef SYS_msgrcv
	SYS_msgrcv,
#endif
#ifdef SYS_msgctl
	SYS_msgctl,
#endif
#ifdef SYS_semget
	SYS_semget,
#endif
#ifdef SYS_semop
	SYS_semop,
#endif
#ifdef SYS_semtimedop
	SYS_semtimedop,
#endif
#ifdef SYS_semctl
	SYS_semctl,
#endif
#ifdef SYS_mq_open
	SYS_mq_open,
#endif
#ifdef SYS_mq_unlink
	SYS_mq_unlink,
#endif
#ifdef SYS_mq_timedsend
	SYS_mq_timedsend,
#endif
#ifdef SYS_mq_timedreceive
	SYS_mq_timedreceive,
#endif
#ifdef SYS_mq_notify
	SYS_mq_notify,
#endif
#ifdef SYS_mq_getsetattr
	SYS_mq_getsetattr,
#endif
#ifdef SYS_memfd_create
	SYS_memfd_create,
#endif
#ifdef SYS_memfd_secret
	SYS_memfd_secret,
#endif
#ifdef SYS_socketpair
	SYS_socketpair,
#endif
#ifdef SYS_flock
	SYS_flock,
#endif
#ifdef SYS_io_setup
	SYS_io_setup,
#endif
	/* SECURITY: inotify's watches come from its user's whole budget
	 * (fs.inotify.max_user_watches) and each pins its inode in the
	 * kernel's memory: a decoder taken over watched 200,000 files
	 * beneath /usr, and no other process of its user (every root
	 * daemon, as root) could add a watch until the run ended. */
#ifdef SYS_inotify_init
	SYS_inotify_init,
#endif
#ifdef SYS_inotify_init1
	SYS_inotify_init1,
#endif
#ifdef SYS_inotify_add_watch
	SYS_inotify_add_watch,
#endif
};

/*
 * PLAT_SANDBOX_DECODER: the only ioctls let through, an allow-list
 * (rule 6: a mechanism, not samples).  Through a descriptor open only
 * for reading -- its archive -- the kernel lets the file's owner set its
 * attribute flags (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR: no-dump,
 * no-atime; append-only and immutable as root, which then cannot remove
 * it) and root freeze or shut down its file system (FIFREEZE,
 * EXT4_IOC_SHUTDOWN), among the many requests each file system adds.
 * The decoder needs none: isatty(3), a terminal's size, the bytes
 * waiting, a descriptor's own close-on-exec flag.
 */
static const uint32_t sb_decoder_ioctls[] = {
	(uint32_t)TCGETS, (uint32_t)TIOCGWINSZ, (uint32_t)FIONREAD,
	(uint32_t)FIOCLEX, (uint32_t)FIONCLEX
};

/*
 * PLAT_SANDBOX_DECODER: the only fcntl(2) commands let through: those
 * that read, and those that act on the descriptor alone.  A status flag
 * (F_SETFL) belongs to the open file description, which the read end of
 * a pipe shares with whoever gave it (the shell, a library caller): a
 * decoder taken over left O_NONBLOCK on a pipeline's standard input, and
 * the next reader of it failed with EAGAIN.  Nor a lock or a lease on
 * the archive, which other processes would wait for.
 */
static const uint32_t sb_decoder_fcntls[] = {
	(uint32_t)F_DUPFD, (uint32_t)F_DUPFD_CLOEXEC, (uint32_t)F_GETFD,
	(uint32_t)F_SETFD, (uint32_t)F_GETFL, (uint32_t)F_GETLK,
	(uint32_t)F_GETOWN, (uint32_t)F_GETSIG, (uint32_t)F_GETPIPE_SZ,
	(uint32_t)F_GETLEASE
};

/*
 * The filter is laid out as one block per system call, in this shape:
 *
 *	JEQ nr, 0, skip		other calls go on to the next block
 *	(checks)		each may jump to refuse
 *	RET ALLOW
 * refuse:
 *	RET ERRNO
 * skip:
 *
 * so that every conditional jump lands within its own block, never
 * further than BPF's 8 bits reach, however many blocks there are.  A
 * call refused whole is "JEQ nr, 0, 1; RET ERRNO".  The accumulator
 * holds the call number on every path into a block.  Labels are
 * resolved once the program is laid; a jump that would still not fit
 * makes the build fail (-E2BIG), never a wrong filter.
 */
#define SB_MAX_INS 1024		/* BPF_MAXINSNS is 4096 */
#define SB_MAX_LABELS 512

/* Label 0: the next instruction. */
#define SB_NEXT 0u

struct sb_prog {
	struct sock_filter ins[SB_MAX_INS];
	uint16_t jt[SB_MAX_INS];	/* the label of each jump */
	uint16_t jf[SB_MAX_INS];
	uint16_t at[SB_MAX_LABELS];	/* the instruction of each label */
	bool placed[SB_MAX_LABELS];
	size_t n, nlabels;
	bool full;			/* an instruction or label too many */
};

static void
emit(struct sb_prog *p, uint16_t code, uint32_t k, unsigned int jt,
    unsigned int jf)
{
	struct sock_filter ins = { code, 0, 0, k };

	if (p->n == SB_MAX_INS) {
		p->full = true;
		return;
	}
	p->ins[p->n] = ins;
	p->jt[p->n] = (uint16_t)jt;
	p->jf[p->n] = (uint16_t)jf;
	p->n++;
}

/* Return: a new label, not yet placed (SB_NEXT if there is no room). */
static unsigned int
new_label(struct sb_prog *p)
{
	if (p->nlabels == SB_MAX_LABELS) {
		p->full = true;
		return SB_NEXT;
	}
	return (unsigned int)p->nlabels++;
}

/* Put label L at the next instruction. */
static void
place(struct sb_prog *p, unsigned int l)
{
	p->at[l] = (uint16_t)p->n;
	p->placed[l] = true;
}

static void
ret(struct sb_prog *p, uint32_t action)
{
	emit(p, BPF_RET | BPF_K, action, SB_NEXT, SB_NEXT);
}

static uint32_t
ret_errno(int e)
{
	return SECCOMP_RET_ERRNO | ((uint32_t)e & SECCOMP_RET_DATA);
}

/* Refuse system call NR whole with errno E. */
static void
refuse_call(struct sb_prog *p, int nr, int e)
{
	unsigned int skip = new_label(p);

	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, SB_NEXT, skip);
	ret(p, ret_errno(e));
	place(p, skip);
}

/* A block of checks for one system call (see the comment above). */
struct sb_block {
	unsigned int refuse, skip;
	int e;
};

static void
block_begin(struct sb_prog *p, struct sb_block *b, int nr, int e)
{
	b->refuse = new_label(p);
	b->skip = new_label(p);
	b->e = e;
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, SB_NEXT, b->skip);
}

/* What no check refused is allowed. */
static void
block_end(struct sb_prog *p, const struct sb_block *b)
{
	ret(p, SECCOMP_RET_ALLOW);
	place(p, b->refuse);
	ret(p, ret_errno(b->e));
	place(p, b->skip);
}

static void
load_arg(struct sb_prog *p, unsigned int arg)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)SB_ARG_LO(arg), SB_NEXT,
	    SB_NEXT);
}

/* Refuse unless argument ARG is 0 or PID: a call that names the
 * process itself. */
static void
refuse_unless_self(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg, uint32_t pid)
{
	unsigned int self = new_label(p);

	load_arg(p, arg);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, self, SB_NEXT);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, pid, self, b->refuse);
	place(p, self);
}

/* Refuse if argument ARG has any bit of MASK. */
static void
refuse_if_any(struct sb_prog *p, const struct sb_block *b, unsigned int arg,
    uint32_t mask)
{
	load_arg(p, arg);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, mask, b->refuse, SB_NEXT);
}

/* Refuse unless argument ARG has a bit of MASK. */
static void
refuse_unless_any(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg, uint32_t mask)
{
	load_arg(p, arg);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, mask, SB_NEXT, b->refuse);
}

/* Refuse unless argument ARG is VALUE. */
static void
refuse_unless_eq(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg, uint32_t value)
{
	load_arg(p, arg);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, value, SB_NEXT, b->refuse);
}

/* Refuse unless argument ARG, all 64 bits of it, is 0 (a NULL pointer:
 * a pointer's low half alone may be 0). */
static void
refuse_unless_null(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg)
{
	refuse_unless_eq(p, b, arg, 0);
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)SB_ARG_HI(arg), SB_NEXT,
	    SB_NEXT);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, SB_NEXT, b->refuse);
}

/* Refuse unless argument ARG is one of the N VALUES (N > 0). */
static void
refuse_unless_one_of(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg, const uint32_t *values, size_t n)
{
	unsigned int ok = new_label(p);
	size_t i;

	load_arg(p, arg);
	for (i = 0; i + 1 < n; i++)
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, values[i], ok, SB_NEXT);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, values[n - 1], ok, b->refuse);
	place(p, ok);
}

/* Refuse if argument ARG is VALUE. */
static void
refuse_if_eq(struct sb_prog *p, const struct sb_block *b, unsigned int arg,
    uint32_t value)
{
	load_arg(p, arg);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, value, b->refuse, SB_NEXT);
}

/* Refuse if argument ARG1 has a bit of MASK1 and ARG2 one of MASK2. */
static void
refuse_if_both(struct sb_prog *p, const struct sb_block *b,
    unsigned int arg1, uint32_t mask1, unsigned int arg2, uint32_t mask2)
{
	unsigned int no = new_label(p);

	load_arg(p, arg1);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, mask1, SB_NEXT, no);
	load_arg(p, arg2);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, mask2, b->refuse, SB_NEXT);
	place(p, no);
}

static void
refuse_calls(struct sb_prog *p, const int *nr, size_t n, int e)
{
	size_t i;

	for (i = 0; i < n; i++)
		refuse_call(p, nr[i], e);
}

/*
 * Call NR, whose argument 0 says what argument 1 names: allowed only with
 * WHO (a process, not a group or a user) and argument 1 the process
 * itself, or 0.
 */
static void
refuse_unless_process_self(struct sb_prog *p, int nr, uint32_t who,
    uint32_t pid)
{
	struct sb_block b;

	block_begin(p, &b, nr, EPERM);
	refuse_unless_eq(p, &b, 0, who);
	refuse_unless_self(p, &b, 1, pid);
	block_end(p, &b);
}

/*
 * SECURITY: no change to another process's scheduling (see the head
 * comment): each call names the process itself, or 0, or is refused.
 */
static void
build_sched_rules(struct sb_prog *p, uint32_t pid)
{
	struct sb_block b;
	size_t i;

	for (i = 0; i < NELEM(sb_sched_calls); i++) {
		block_begin(p, &b, sb_sched_calls[i], EPERM);
		refuse_unless_self(p, &b, 0, pid);
		block_end(p, &b);
	}
	refuse_calls(p, sb_sched_denied, NELEM(sb_sched_denied), EPERM);
#ifdef SYS_setpriority
	refuse_unless_process_self(p, SYS_setpriority, SB_PRIO_PROCESS, pid);
#endif
#ifdef SYS_ioprio_set
	refuse_unless_process_self(p, SYS_ioprio_set, SB_IOPRIO_WHO_PROCESS,
	    pid);
#endif
}

/*
 * SECURITY: no signal through a descriptor's owner.  A descriptor whose
 * owner is set (F_SETOWN) signals that process, with any signal
 * (F_SETSIG: SIGKILL too), when I/O comes (O_ASYNC: a pipe it writes
 * itself), and the kernel checks only that the two share a user: kill's
 * rule, without kill.  Only Landlock's signal scope (ABI 6) refuses it
 * too.  So F_SETOWN names the process itself, or 0; F_SETOWN_EX (a
 * struct) is refused, as the ioctls FIOSETOWN and SIOCSPGRP are (unless
 * PLAT_SANDBOX_SIGNAL_OUT).  With PLAT_SANDBOX_DECODER, only the
 * commands of sb_decoder_fcntls.
 */
static void
build_fcntl_rules(struct sb_prog *p, unsigned int internal, uint32_t pid)
{
	struct sb_block b;
	unsigned int other;

	if ((internal & PLAT_SANDBOX_SIGNAL_OUT) != 0 &&
	    (internal & PLAT_SANDBOX_DECODER) == 0)
		return;
	block_begin(p, &b, SYS_fcntl, EPERM);
	if ((internal & PLAT_SANDBOX_SIGNAL_OUT) == 0) {
		refuse_if_eq(p, &b, 1, (uint32_t)F_SETOWN_EX);
		other = new_label(p);
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)F_SETOWN,
		    SB_NEXT, other);
		refuse_unless_self(p, &b, 2, pid);
		place(p, other);
	}
	if ((internal & PLAT_SANDBOX_DECODER) != 0)
		refuse_unless_one_of(p, &b, 1, sb_decoder_fcntls,
		    NELEM(sb_decoder_fcntls));
	block_end(p, &b);
}

/*
 * SECURITY: the process stays within its parent's reach (see the head
 * comment): in the process group the parent kills, and killed when its
 * parent dies.  PR_SET_PDEATHSIG may still say SIGKILL, which only makes
 * that surer (LeakSanitizer's tracer does); any other signal, or none,
 * would undo it.
 */
static void
build_lifetime_rules(struct sb_prog *p)
{
	struct sb_block b;
	unsigned int other;

	refuse_calls(p, sb_group_calls, NELEM(sb_group_calls), EPERM);
	block_begin(p, &b, SYS_prctl, EPERM);
	other = new_label(p);
	load_arg(p, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)PR_SET_PDEATHSIG,
	    SB_NEXT, other);
	refuse_unless_eq(p, &b, 1, (uint32_t)SIGKILL);
	place(p, other);
	block_end(p, &b);
}

/*
 * PLAT_SANDBOX_DECODER's calls (see sb_decoder_denied): and mmap(2) of
 * shared anonymous memory, shmem that RLIMIT_DATA does not count (only
 * writable private mappings count): a decoder taken over held 1 GiB so
 * over its limit of 576 MiB.  Its own mappings are private; the ring
 * was mapped by its parent.  Sanitizer builds, which set no RLIMIT_DATA,
 * keep it.
 */
static void
build_decoder_rules(struct sb_prog *p)
{
	struct sb_block b;

	refuse_calls(p, sb_decoder_denied, NELEM(sb_decoder_denied), EPERM);
	if (SB_SANITIZER)
		return;
	block_begin(p, &b, SYS_mmap, EPERM);
	refuse_if_both(p, &b, 3, (uint32_t)MAP_SHARED, 3,
	    (uint32_t)MAP_ANONYMOUS);
	block_end(p, &b);
}

/*
 * The calls that change files: extended attributes by path never; with
 * NO_DEST, every write is refused; otherwise, without SETID, set-id and
 * sticky modes and owner changes.
 * openat2(2) carries its flags and mode in a struct open_how that a
 * filter cannot read: with NO_DEST it says ENOSYS (libc falls back to
 * openat); otherwise it stays allowed, and a process with write rights
 * beneath the destination can create a set-id file with it.
 */
static void
build_file_rules(struct sb_prog *p, unsigned int flags)
{
	struct sb_block b;
	size_t i;

	refuse_calls(p, sb_path_attr_calls, NELEM(sb_path_attr_calls), EPERM);
	if ((flags & PFX_SANDBOX_NO_DEST) != 0) {
#ifdef SYS_openat2
		refuse_call(p, SYS_openat2, ENOSYS);
#endif
		for (i = 0; i < NELEM(sb_open_calls); i++) {
			block_begin(p, &b, sb_open_calls[i].nr, EPERM);
			refuse_if_any(p, &b, sb_open_calls[i].flags,
			    SB_O_WRITE);
			block_end(p, &b);
		}
		for (i = 0; i < NELEM(sb_mode_calls); i++)
			refuse_call(p, sb_mode_calls[i].nr, EPERM);
		refuse_calls(p, sb_chown_calls, NELEM(sb_chown_calls), EPERM);
		refuse_calls(p, sb_write_calls, NELEM(sb_write_calls), EPERM);
		/* SECURITY: the memory limit its parent set stays: a limit
		 * may be read, never set (root could raise it). */
#ifdef SYS_setrlimit
		refuse_call(p, SYS_setrlimit, EPERM);
#endif
#ifdef SYS_prlimit64
		block_begin(p, &b, SYS_prlimit64, EPERM);
		refuse_unless_null(p, &b, 2);
		block_end(p, &b);
#endif
		return;
	}
	/* SECURITY: no symlink unless asked for; Landlock's right to make
	 * one is granted for moves (SB_FS_DEST). */
	if ((flags & PFX_SANDBOX_SYMLINKS) == 0) {
#ifdef SYS_symlink
		refuse_call(p, SYS_symlink, EPERM);
#endif
		refuse_call(p, SYS_symlinkat, EPERM);
	}
	if ((flags & PFX_SANDBOX_SETID) != 0)
		return;
	/* SECURITY: no set-id or sticky file, no owner change. */
	for (i = 0; i < NELEM(sb_open_calls); i++) {
		block_begin(p, &b, sb_open_calls[i].nr, EPERM);
		refuse_if_both(p, &b, sb_open_calls[i].flags,
		    (uint32_t)O_CREAT | SB_O_TMPFILE, sb_open_calls[i].mode,
		    SB_SETID_BITS);
		block_end(p, &b);
	}
	for (i = 0; i < NELEM(sb_mode_calls); i++) {
		block_begin(p, &b, sb_mode_calls[i].nr, EPERM);
		refuse_if_any(p, &b, sb_mode_calls[i].mode, SB_SETID_BITS);
		block_end(p, &b);
	}
	refuse_calls(p, sb_chown_calls, NELEM(sb_chown_calls), EPERM);
}

/*
 * Lay out the filter in *P for FLAGS (PFX_SANDBOX_*), INTERNAL
 * (PLAT_SANDBOX_*) and PID, the confined process (see the file's head
 * comment for what it does).  Return: 0, or -E2BIG if the program does
 * not fit in *P or a jump would not fit BPF's 8 bits.
 */
static int
build_filter(struct sb_prog *p, unsigned int flags, unsigned int internal,
    uint32_t pid)
{
	struct sb_block b;
	unsigned int l;
	size_t i, to;

	memset(p, 0, sizeof(*p));
	p->nlabels = 1;		/* SB_NEXT */
	/* SECURITY: another architecture's numbers are other calls. */
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    SB_NEXT, SB_NEXT);
	l = new_label(p);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SB_AUDIT_ARCH, l, SB_NEXT);
	ret(p, SECCOMP_RET_KILL_PROCESS);
	place(p, l);
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	    SB_NEXT, SB_NEXT);
	/* SECURITY: x32 numbers are other calls; none is ours. */
	if (SB_X32_BIT != 0) {
		l = new_label(p);
		emit(p, BPF_JMP | BPF_JGE | BPF_K, SB_X32_BIT, SB_NEXT, l);
		ret(p, SECCOMP_RET_KILL_PROCESS);
		place(p, l);
	}

	/* Threads, and no other process: clone3's flags are in a struct
	 * the filter cannot read, so ENOSYS, and libc falls back to clone,
	 * whose flags (argument 0) it can. */
#ifdef SYS_clone3
	refuse_call(p, SYS_clone3, ENOSYS);
#endif
	block_begin(p, &b, SYS_clone, EPERM);
	refuse_if_any(p, &b, 0, SB_CLONE_NEW);
	refuse_unless_any(p, &b, 0, SB_CLONE_OK);
	block_end(p, &b);
	refuse_calls(p, sb_fork_calls, NELEM(sb_fork_calls), EPERM);

	/* Signals to the process itself only (abort, raise, pthread_kill),
	 * its own scheduling, its parent's group and death signal kept,
	 * unless the caller must signal a child it made before. */
	if ((internal & PLAT_SANDBOX_SIGNAL_OUT) == 0) {
		for (i = 0; i < NELEM(sb_signal_calls); i++) {
			block_begin(p, &b, sb_signal_calls[i], EPERM);
			refuse_unless_eq(p, &b, 0, pid);
			block_end(p, &b);
		}
		refuse_calls(p, sb_signal_denied, NELEM(sb_signal_denied),
		    EPERM);
		build_sched_rules(p, pid);
		build_lifetime_rules(p);
	}

	build_fcntl_rules(p, internal, pid);

	/*
	 * SECURITY: no keystrokes pushed into a terminal (TIOCSTI), none
	 * through the console's selection (TIOCLINUX): a terminal the
	 * process holds (its input, say) would run them in the user's
	 * shell once pfextract exits.  Not the controlling terminal (the
	 * decoder process has none: setsid), but root may push into any.
	 * The kernel reads the request as 32 bits, as the filter does.
	 */
	block_begin(p, &b, SYS_ioctl, EPERM);
	refuse_if_eq(p, &b, 1, (uint32_t)TIOCSTI);
	refuse_if_eq(p, &b, 1, (uint32_t)TIOCLINUX);
	/* SECURITY: no descriptor's owner set (see build_fcntl_rules()):
	 * these name it through a pointer the filter cannot read. */
	if ((internal & PLAT_SANDBOX_SIGNAL_OUT) == 0) {
		refuse_if_eq(p, &b, 1, (uint32_t)FIOSETOWN);
		refuse_if_eq(p, &b, 1, (uint32_t)SIOCSPGRP);
	}
	if ((internal & PLAT_SANDBOX_DECODER) != 0)
		refuse_unless_one_of(p, &b, 1, sb_decoder_ioctls,
		    NELEM(sb_decoder_ioctls));
	block_end(p, &b);

	if ((internal & PLAT_SANDBOX_DECODER) != 0)
		build_decoder_rules(p);
	build_file_rules(p, flags);
	refuse_calls(p, sb_denied, NELEM(sb_denied), EPERM);
	ret(p, SECCOMP_RET_ALLOW);

	/* Turn labels into the relative offsets BPF wants. */
	if (p->full)
		return -E2BIG;
	for (i = 0; i < p->n; i++) {
		if (p->jt[i] != SB_NEXT) {
			if (!p->placed[p->jt[i]])
				return -E2BIG;
			to = p->at[p->jt[i]] - (i + 1);
			if (to > 255)
				return -E2BIG;
			p->ins[i].jt = (uint8_t)to;
		}
		if (p->jf[i] != SB_NEXT) {
			if (!p->placed[p->jf[i]])
				return -E2BIG;
			to = p->at[p->jf[i]] - (i + 1);
			if (to > 255)
				return -E2BIG;
			p->ins[i].jf = (uint8_t)to;
		}
	}
	return 0;
}

/*
 * Can this process load a seccomp filter?  The architecture must be one
 * the filter knows, and the kernel must offer filters.  Return: true or
 * false.
 */
static bool
seccomp_usable(void)
{
	uint32_t action = SECCOMP_RET_ERRNO;

	if (SB_AUDIT_ARCH == 0)
		return false;
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
		return true;
	/* Before Linux 4.14 there is no GET_ACTION_AVAIL: ask prctl. */
	return errno == EINVAL && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

/*
 * Load the filter for FLAGS, INTERNAL and the process PID, for every
 * thread.  Return: 0, or -errno.
 */
static int
load_filter(unsigned int flags, unsigned int internal, uint32_t pid)
{
	struct sb_prog p;
	struct sock_fprog prog;
	long r;

	r = build_filter(&p, flags, internal, pid);
	if (r < 0)
		return (int)r;
	prog.len = (unsigned short)p.n;
	prog.filter = p.ins;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r == 0)
		return 0;
	if (r > 0)
		return -EBUSY;	/* thread R could not be synchronised */
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* No seccomp(2) or no TSYNC: this thread, through prctl. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == -1)
		return -errno;
	return 0;
}

/* Return: the kernel's Landlock ABI, or 0 with errno set. */
static int
landlock_abi(void)
{
	long abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : 0;
}

/* Every filesystem right that ABI knows. */
static uint64_t
fs_rights(int abi)
{
	uint64_t r = SB_FS_ABI1;

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

/*
 * Allow RIGHTS (those the ruleset handles, and those a file may carry if
 * FD is not a directory) beneath the file or directory open as FD.
 * Return: 0, or -errno.
 */
static int
add_rule(int rulesetfd, int fd, uint64_t rights, uint64_t handled)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		rights &= SB_FS_FILE;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = rights & handled;
	pb.parent_fd = fd;
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, rulesetfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
		return -errno;
	return 0;
}

/* add_rule() for the system PATH, if it exists.  Return: 0, or -errno. */
static int
add_path_rule(int rulesetfd, const char *path, uint64_t rights,
    uint64_t handled)
{
	int fd, r, e;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT || errno == EACCES ? 0 : -errno;
	r = add_rule(rulesetfd, fd, rights, handled);
	e = errno;
	(void)close(fd);
	errno = e;
	return r;
}

/*
 * Make the Landlock ruleset for ABI: DESTFD (or none, with NO_DEST) and
 * the system files; signals are scoped unless INTERNAL has
 * PLAT_SANDBOX_SIGNAL_OUT.  FILTER: the system-call filter will be loaded
 * too.  *NET and *SCOPE say what else it handles.
 * Return: the ruleset's descriptor, or -errno.
 */
static int
make_ruleset(int abi, int destfd, unsigned int flags, unsigned int internal,
    bool filter, bool *net, bool *scope)
{
	struct sb_ruleset_attr attr;
	/* SECURITY: a device node in the destination may be moved aside
	 * (--backup, the journal) only where the filter makes none. */
	uint64_t dest = SB_FS_DEST | (filter ? SB_FS_DEVICES : 0);
	size_t size, i;
	int fd, r;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = fs_rights(abi);
	size = offsetof(struct sb_ruleset_attr, handled_access_net);
	if (abi >= 4) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct sb_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		if ((internal & PLAT_SANDBOX_SIGNAL_OUT) == 0)
			attr.scoped |= LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd == -1)
		return -errno;
	r = 0;
	if ((flags & PFX_SANDBOX_NO_DEST) == 0)
		r = add_rule(fd, destfd, dest, attr.handled_access_fs);
	for (i = 0; r == 0 && i < NELEM(sb_read_dirs); i++)
		r = add_path_rule(fd, sb_read_dirs[i], SB_FS_READ,
		    attr.handled_access_fs);
	for (i = 0; r == 0 && i < NELEM(sb_read_files); i++)
		r = add_path_rule(fd, sb_read_files[i], SB_FS_READ,
		    attr.handled_access_fs);
	if (r == 0 && SB_SANITIZER)
		r = add_path_rule(fd, "/proc/self", SB_FS_READ,
		    attr.handled_access_fs);
	if (r < 0) {
		(void)close(fd);
		return r;
	}
	*net = abi >= 4;
	*scope = abi >= 6;
	return fd;
}

/* Append ", WHAT" (or WHAT first) to INFO's text. */
static void
say(struct pfx_sandbox_info *info, const char *what)
{
	size_t len = strlen(info->text);

	(void)snprintf(info->text + len, sizeof(info->text) - len, "%s%s",
	    len > 0 ? ", " : "", what);
}

/*
 * Write INFO's one-line text from its fields, FLAGS, INTERNAL and the
 * Landlock NOTE.
 */
static void
describe(struct pfx_sandbox_info *info, unsigned int flags,
    unsigned int internal, const char *note, int view, bool userns)
{
	char buf[sizeof(info->text)];

	info->text[0] = '\0';
	if (!info->fs && !info->seccomp)
		say(info, "none");
	if (info->fs) {
		(void)snprintf(buf, sizeof(buf), "landlock ABI %d (fs%s%s%s)",
		    info->landlock_abi, (flags & PFX_SANDBOX_NO_DEST) != 0 ?
		    " read-only" : "", info->net ? ", net" : "",
		    !info->scope ? "" : (internal & PLAT_SANDBOX_SIGNAL_OUT) ?
		    ", socket scope" : ", scope");
		say(info, buf);
	} else {
		say(info, note);
	}
	/* Only where there is a destination to keep writable. */
	if (info->fs && (flags & PFX_SANDBOX_NO_DEST) == 0) {
		if (view == 0)
			(void)snprintf(buf, sizeof(buf), "read-only mounts%s",
			    userns ? " (user namespace)" : "");
		else
			(void)snprintf(buf, sizeof(buf), "mounts writable "
			    "(%s%s)", userns && view != -EXDEV ?
			    "user namespace: " : "",
			    view == -EPERM ? (userns ? "refused" :
			    "no CAP_SYS_ADMIN") :
			    view == -EBUSY ? "other threads" :
			    view == -EXDEV ? "destination's parent is /" :
			    view == -ENOSPC || view == -EUSERS ?
			    "none left, or disabled" :
			    view == -ENOSYS ? "kernel" : strerror(-view));
		say(info, buf);
	}
	if (info->no_new_privs)
		say(info, "no_new_privs");
	say(info, info->seccomp ? "seccomp" : SB_AUDIT_ARCH == 0 ?
	    "no seccomp (architecture not supported)" :
	    "no seccomp (kernel)");
}

/* see pfx_sandbox.h */
int
pfx_sandbox_confine(int destfd, unsigned int flags,
    struct pfx_sandbox_info *info)
{
	return plat_sandbox_confine(destfd, flags, 0, info);
}

/* see platform.h */
int
plat_sandbox_confine(int destfd, unsigned int flags, unsigned int internal,
    struct pfx_sandbox_info *info)
{
	char note[96] = "landlock not applied";
	struct stat st;
	bool net = false, scope = false, userns = false, use_seccomp;
	int abi, rfd = -1, view = -ENOSYS, r;

	memset(info, 0, sizeof(*info));
	(void)snprintf(info->text, sizeof(info->text), "none: not applied");
	if ((flags & ~(unsigned int)(PFX_SANDBOX_REQUIRE |
	    PFX_SANDBOX_SYMLINKS | PFX_SANDBOX_NO_DEST |
	    PFX_SANDBOX_SETID)) != 0 ||
	    (internal & ~(unsigned int)(PLAT_SANDBOX_SIGNAL_OUT |
	    PLAT_SANDBOX_DECODER)) != 0)
		return -EINVAL;
	if ((flags & PFX_SANDBOX_NO_DEST) == 0) {
		if (destfd < 0 || fstat(destfd, &st) == -1)
			return -EBADF;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}

	/* Everything that can fail for want of a feature, first: with
	 * REQUIRE nothing is applied unless all of it will be. */
	abi = landlock_abi();
	info->landlock_abi = abi;
	if (abi == 0)
		(void)snprintf(note, sizeof(note), "no landlock (%s)",
		    errno == ENOSYS ? "kernel without it" :
		    errno == EOPNOTSUPP ? "disabled at boot" : strerror(errno));
	else if (abi < 2)
		(void)snprintf(note, sizeof(note), "landlock ABI %d unused "
		    "(no REFER right before Linux 5.19)", abi);
	use_seccomp = seccomp_usable();
	if (abi >= 2) {
		rfd = make_ruleset(abi, destfd, flags, internal, use_seccomp,
		    &net, &scope);
		if (rfd < 0)
			(void)snprintf(note, sizeof(note), "landlock ABI %d "
			    "unused (%s)", abi, strerror(-rfd));
	}
	if ((flags & PFX_SANDBOX_REQUIRE) != 0 && (rfd < 0 || !use_seccomp)) {
		if (rfd >= 0)
			(void)close(rfd);
		describe(info, flags, internal, note, view, userns);
		return -ENOSYS;
	}

	/* SECURITY: no_new_privs first: Landlock and seccomp need it (or
	 * CAP_SYS_ADMIN), and a set-id program run later gains nothing. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		r = -errno;
		goto out;
	}
	info->no_new_privs = true;
	if (rfd >= 0) {
		/* SECURITY: what Landlock cannot refuse beneath a
		 * destination, read-only mounts refuse elsewhere (a file's
		 * mode, owner, times, attributes; view_linux.c).  Made here,
		 * with nothing left to fail but the two steps below, and
		 * before the filter refuses mount calls. */
		if ((flags & PFX_SANDBOX_NO_DEST) == 0)
			view = plat_view_readonly(destfd, SB_SANITIZER,
			    &userns);
		/* SECURITY: -ESTALE is another process renaming the
		 * destination while the view was made, again and again
		 * (plat_view_readonly() tries more than once): going on
		 * without the view would let it take the view away, for a
		 * writer it may take over.  Refused, not degraded.  And a
		 * user namespace made, but its ids unmapped or its
		 * capabilities kept: failed midway. */
		if (view == -ESTALE || view == -ENOTRECOVERABLE) {
			r = view;
			goto out;
		}
		if (syscall(SYS_landlock_restrict_self, rfd, 0) == -1) {
			r = -errno;
			goto out;
		}
		info->fs = true;
		info->net = net;
		info->scope = scope;
	}
	/* SECURITY: after the view (CAP_SYS_ADMIN), before the filter: of
	 * root's capabilities only those that writing files needs, so that
	 * a descriptor of a file outside held from before (standard error
	 * redirected) can get no file capability, trusted.* attribute or
	 * immutable flag (plat_os_keep_file_caps()). */
	r = plat_os_keep_file_caps(SB_SANITIZER);
	if (r < 0)
		goto out;
	if (use_seccomp) {
		r = load_filter(flags, internal, (uint32_t)getpid());
		if (r < 0)
			goto out;
		info->seccomp = true;
	}
	r = 0;
out:
	if (rfd >= 0)
		(void)close(rfd);
	describe(info, flags, internal, note, view, userns);
	return r;
}
