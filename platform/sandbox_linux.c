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
 * and moving them within it (REFER); symlinks only when asked; never
 * device nodes, FIFOs or sockets, never execution, no device ioctls.
 * Beneath /usr, and the three NSS files that owner lookups read, reading
 * only.  Nothing elsewhere.  ABI 1 (Linux 5.13 to 5.18) is not used: it
 * has no REFER right, so it refuses every link or rename from one
 * directory to another, which would turn hard-link entries into
 * refusals; the filesystem is then not confined and INFO says so.  From
 * ABI 4, TCP bind and connect are handled with no rule (refused); from
 * ABI 6, abstract UNIX sockets and signals are scoped to the domain.
 * Landlock checks at open time: descriptors opened before confinement
 * (the archive, stdout) keep working.
 *
 * The seccomp filter is a deny-list, written by hand in classic BPF (no
 * libseccomp).  Why not an allow-list: the system calls that a correct
 * run makes are chosen by glibc, libarchive and the compression
 * libraries, not by us, and they change from one version to the next
 * (clone3 for threads in glibc 2.34, rseq in 2.35, fstatat becoming
 * newfstatat or statx, openat2, getrandom, ...).  An allow-list that is
 * right for one Debian release kills the process on the next; a wrong
 * deny-list entry only refuses one call we never make.  Landlock already
 * confines the filesystem, so the filter's job is the rest: no program
 * is executed, no socket made, no process traced, no namespace or mount,
 * no module, keyring, bpf, perf, io_uring or userfaultfd (the usual
 * kernel attack surface), no device node, no change of identity, clock
 * or host.  Threads and fork stay allowed (clone without CLONE_NEW*
 * flags; clone3, whose flags a filter cannot read, says ENOSYS so that
 * glibc falls back to clone), as libraries may start threads.
 *
 * Sanitizer builds (make check's obj/san/) keep two holes that
 * LeakSanitizer needs at exit to stop the threads and read their memory
 * maps: ptrace(2) is allowed, and /proc/self may be read.  Release
 * builds have neither.
 *
 * The filter first checks the architecture (chosen at compile time;
 * another one, such as a 32-bit entry on a 64-bit kernel, kills the
 * process, since its system-call numbers mean other calls) and on x86_64
 * kills x32 system-call numbers for the same reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

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

/* What an extractor does beneath its destination; no MAKE_SYM here. */
#define SB_FS_DEST (SB_FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REFER)

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

/* The low 32 bits of clone's flags (args[0]) in struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SB_ARG0_LO (offsetof(struct seccomp_data, args) + 4)
#else
#define SB_ARG0_LO offsetof(struct seccomp_data, args)
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

/* Room for the filter: head, one jump per call, and the tail. */
#define SB_MAX_INS (NELEM(sb_denied) + 16)

/* Where a jump of the filter goes, resolved once the program is laid. */
enum sb_label {
	SB_NEXT = 0,	/* the next instruction */
	SB_L_CLONE,	/* check clone's flags */
	SB_L_EPERM,
	SB_L_ENOSYS,
	SB_L_KILL,
	SB_NLABELS
};

struct sb_prog {
	struct sock_filter ins[SB_MAX_INS];
	unsigned char jt[SB_MAX_INS];	/* enum sb_label of each jump */
	unsigned char jf[SB_MAX_INS];
	size_t at[SB_NLABELS];		/* instruction of each label */
	size_t n;
};

static void
emit(struct sb_prog *p, uint16_t code, uint32_t k, enum sb_label jt,
    enum sb_label jf)
{
	struct sock_filter ins = { code, 0, 0, k };

	p->ins[p->n] = ins;
	p->jt[p->n] = (unsigned char)jt;
	p->jf[p->n] = (unsigned char)jf;
	p->n++;
}

static void
label(struct sb_prog *p, enum sb_label l)
{
	p->at[l] = p->n;
}

/*
 * Lay out the filter in *P (see the file's head comment for what it
 * does).  Return: 0, or -E2BIG if a jump would not fit BPF's 8 bits
 * (more calls than a filter of this shape can hold).
 */
static int
build_filter(struct sb_prog *p)
{
	size_t i, to;

	memset(p, 0, sizeof(*p));
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    SB_NEXT, SB_NEXT);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SB_AUDIT_ARCH, SB_NEXT, SB_L_KILL);
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	    SB_NEXT, SB_NEXT);
	/* SECURITY: x32 numbers are other calls; none is ours. */
	if (SB_X32_BIT != 0)
		emit(p, BPF_JMP | BPF_JGE | BPF_K, SB_X32_BIT, SB_L_KILL,
		    SB_NEXT);
#ifdef SYS_clone3
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, SB_L_ENOSYS, SB_NEXT);
#endif
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, SB_L_CLONE, SB_NEXT);
	for (i = 0; i < NELEM(sb_denied); i++)
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sb_denied[i],
		    SB_L_EPERM, SB_NEXT);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, SB_NEXT, SB_NEXT);
	label(p, SB_L_CLONE);
	emit(p, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_LO, SB_NEXT, SB_NEXT);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, SB_CLONE_NEW, SB_L_EPERM,
	    SB_NEXT);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, SB_NEXT, SB_NEXT);
	label(p, SB_L_EPERM);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA),
	    SB_NEXT, SB_NEXT);
	label(p, SB_L_ENOSYS);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO |
	    (ENOSYS & SECCOMP_RET_DATA), SB_NEXT, SB_NEXT);
	label(p, SB_L_KILL);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, SB_NEXT, SB_NEXT);

	/* Turn labels into the relative offsets BPF wants. */
	for (i = 0; i < p->n; i++) {
		if (p->jt[i] != SB_NEXT) {
			to = p->at[p->jt[i]] - (i + 1);
			if (to > 255)
				return -E2BIG;
			p->ins[i].jt = (uint8_t)to;
		}
		if (p->jf[i] != SB_NEXT) {
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

/* Load the filter for every thread.  Return: 0, or -errno. */
static int
load_filter(void)
{
	struct sb_prog p;
	struct sock_fprog prog;
	long r;

	r = build_filter(&p);
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
 * the system files; *NET and *SCOPE say what else
 * it handles.  Return: the ruleset's descriptor, or -errno.
 */
static int
make_ruleset(int abi, int destfd, unsigned int flags, bool *net,
    bool *scope)
{
	struct sb_ruleset_attr attr;
	uint64_t dest = SB_FS_DEST;
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
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd == -1)
		return -errno;
	if ((flags & PFX_SANDBOX_SYMLINKS) != 0)
		dest |= LANDLOCK_ACCESS_FS_MAKE_SYM;
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

/* Write INFO's one-line text from its fields and the Landlock NOTE. */
static void
describe(struct pfx_sandbox_info *info, unsigned int flags, const char *note)
{
	char buf[sizeof(info->text)];

	info->text[0] = '\0';
	if (!info->fs && !info->seccomp)
		say(info, "none");
	if (info->fs) {
		(void)snprintf(buf, sizeof(buf), "landlock ABI %d (fs%s%s%s)",
		    info->landlock_abi, (flags & PFX_SANDBOX_NO_DEST) != 0 ?
		    " read-only" : "", info->net ? ", net" : "",
		    info->scope ? ", scope" : "");
		say(info, buf);
	} else {
		say(info, note);
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
	char note[96] = "landlock not applied";
	struct stat st;
	bool net = false, scope = false, use_seccomp;
	int abi, rfd = -1, r;

	memset(info, 0, sizeof(*info));
	(void)snprintf(info->text, sizeof(info->text), "none: not applied");
	if ((flags & ~(unsigned int)(PFX_SANDBOX_REQUIRE |
	    PFX_SANDBOX_SYMLINKS | PFX_SANDBOX_NO_DEST)) != 0)
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
	if (abi >= 2) {
		rfd = make_ruleset(abi, destfd, flags, &net, &scope);
		if (rfd < 0)
			(void)snprintf(note, sizeof(note), "landlock ABI %d "
			    "unused (%s)", abi, strerror(-rfd));
	}
	use_seccomp = seccomp_usable();
	if ((flags & PFX_SANDBOX_REQUIRE) != 0 && (rfd < 0 || !use_seccomp)) {
		if (rfd >= 0)
			(void)close(rfd);
		describe(info, flags, note);
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
		if (syscall(SYS_landlock_restrict_self, rfd, 0) == -1) {
			r = -errno;
			goto out;
		}
		info->fs = true;
		info->net = net;
		info->scope = scope;
	}
	if (use_seccomp) {
		r = load_filter();
		if (r < 0)
			goto out;
		info->seccomp = true;
	}
	r = 0;
out:
	if (rfd >= 0)
		(void)close(rfd);
	describe(info, flags, note);
	return r;
}
