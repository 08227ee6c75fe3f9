/*
 * pfx_sandbox.h -- confine the calling process to one destination
 * directory: the kernel, not our code, then refuses anything else.
 *
 * After pfx_sandbox_confine() the process can still read and write
 * beneath DESTFD (nothing anywhere with PFX_SANDBOX_NO_DEST), read system
 * files that hold no secret (beneath /usr, and /etc/passwd, /etc/group
 * and /etc/nsswitch.conf for owner names), use every descriptor it
 * already holds (the archive, stdout), start threads, and signal
 * itself.  It can no longer: create, write, remove or rename anything
 * elsewhere; read anything else; make device nodes, FIFOs or sockets;
 * execute a program; start another process (fork, vfork, clone without
 * CLONE_THREAD), so nothing it starts outlives it; signal another
 * process (kill, or a descriptor's owner: F_SETOWN), change its
 * scheduling (priority, policy, CPUs), leave its process group or clear
 * its parent-death signal; without PFX_SANDBOX_SETID, set a
 * set-user-ID, set-group-ID or sticky bit (chmod family, or a mode given
 * to open, openat or creat) or change an owner; open network sockets or
 * connect anywhere; trace other processes; mount, enter namespaces, load
 * modules, touch keyrings, bpf or perf; gain privileges (no_new_privs).
 * With PFX_SANDBOX_NO_DEST the system-call filter refuses every write by
 * name, and changes to modes, owners, times, extended attributes and
 * attribute flags (file_setattr(2)) even through a descriptor held from
 * before, so that this holds without Landlock too.
 *
 * What the kernel cannot refuse: writing through a descriptor it already
 * holds (the filter cannot tell one file from another, and Landlock
 * checks at open time); with write rights beneath DESTFD, writing
 * through a hard link already inside it to a file that is also
 * elsewhere; and, with those rights, creating a set-id file with
 * openat2(2), whose mode lies in a struct the filter cannot read (Linux
 * does not let an unprivileged process set a set-group-ID bit for a
 * group it is not in, nor give a file away, but root can).  Not
 * refused either, by choice: extended attributes beneath DESTFD, which
 * extraction restores (security.capability among them, for root).
 * Landlock has no right for a file's mode, owner, times or extended
 * attributes: with CAP_SYS_ADMIN the process gets a mount namespace of
 * its own where every mount is read-only (EROFS) but a tree rooted at
 * DESTFD's parent, after each directory descriptor it holds is replaced,
 * under the same number, by one on a detached tree (DESTFD's writable,
 * the others read-only; ".." of its top is itself), and with /proc taken
 * away (/proc/self/exe and map_files lead to the old mounts).  An
 * ordinary user's process (not uid 0, no capability) gets the same in a
 * user namespace of its own that maps its ids to themselves (keeping
 * /proc, locked there), every capability there dropped after; tried in
 * a forked child first, so that where the kernel refuses it the process
 * is left as it was.  Then only DESTFD's parent and what lies beside
 * DESTFD in it stay changeable; without a view (info->text: "mounts writable
 * (...)") the mode and times of any file the process may change by
 * name, or may open, do too.  A destination renamed again and again
 * while the view is made fails the call (-ESTALE).  A struct pfx_root
 * on DESTFD must be told, by pfx_root_confined().
 * Irreversible, for the process and every thread it starts: a library
 * caller must not confine its own process (pfextract.h offers a
 * confined child instead).
 *
 * Linux: Landlock at the best ABI the kernel offers (filesystem rights;
 * TCP bind/connect from ABI 4; abstract UNIX sockets and signals scoped
 * from ABI 6), PR_SET_NO_NEW_PRIVS, and a seccomp filter.  The rules on
 * processes, signals, set-id bits and owners, and NO_DEST's refusals by
 * errno EPERM, are the filter's: they hold where info->seccomp is true.
 * The chown calls are refused whole, even one that changes nothing.
 * Elsewhere: nothing is enforced and info says so.
 */
#ifndef PFX_SANDBOX_H
#define PFX_SANDBOX_H

#include <stdbool.h>

#ifndef PFX_API
#define PFX_API __attribute__((visibility("default")))
#endif

/* Flags of pfx_sandbox_confine(). */
#define PFX_SANDBOX_REQUIRE	0x1	/* fail unless fs and seccomp hold */
#define PFX_SANDBOX_SYMLINKS	0x2	/* allow making symlinks in dest */
#define PFX_SANDBOX_NO_DEST	0x4	/* no destination: DESTFD ignored,
					   nothing anywhere may be written
					   (listing) */
#define PFX_SANDBOX_SETID	0x8	/* keep the right to set set-id and
					   sticky bits and to change owners
					   (pfextract -p --same-owner) */

/* What was enforced. */
struct pfx_sandbox_info {
	int landlock_abi;	/* the kernel's Landlock ABI; 0: none */
	bool fs;		/* filesystem confined to the destination */
	bool net;		/* TCP bind and connect denied (Landlock) */
	bool scope;		/* abstract UNIX sockets, signals scoped */
	bool no_new_privs;
	bool seccomp;		/* the system-call filter is loaded */
	char text[200];		/* one line, e.g. "landlock ABI 7 (fs, net,
				   scope), seccomp" or "none: ..." */
};

/*
 * Confine the calling process (every thread: call it before starting
 * any) to DESTFD, a directory descriptor (borrowed; O_PATH will do), or
 * with PFX_SANDBOX_NO_DEST to no destination at all.  Whatever the kernel
 * cannot enforce is left out and reported in *INFO (always filled).
 * Return: 0; -ENOTDIR or -EBADF for a bad DESTFD; -EINVAL for unknown
 * FLAGS bits; with PFX_SANDBOX_REQUIRE, -ENOSYS when fs or seccomp could
 * not be enforced (nothing is then applied); another -errno if a step
 * failed midway (the process may be partly confined: treat it as
 * unusable for anything but reporting the error), -ENOTRECOVERABLE among
 * them: a user namespace made, its ids not mapped or its capabilities
 * not dropped.
 */
PFX_API int pfx_sandbox_confine(int destfd, unsigned int flags,
    struct pfx_sandbox_info *info);

#endif /* PFX_SANDBOX_H */
