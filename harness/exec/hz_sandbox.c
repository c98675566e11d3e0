/* hz_sandbox.c: --sandbox, a worker in namespaces of its own (docs/SECURITY.md).
 *
 * Before it initialises CPython (it is single-threaded then), the worker unshares:
 *   - a network namespace: only a loopback interface, down: no network at all;
 *   - a mount namespace in which every mount is read-only except the worker's own
 *     temporary directory (where inputs run): a program or target cannot write
 *     outside it, even by absolute path;
 *   - a user namespace when not root (mapping the user to itself), which is what
 *     lets an unprivileged user make the other two where the kernel allows it.
 * Where the kernel refuses (no user namespaces, a seccomp filter, an old kernel
 * without mount_setattr), the worker says so on stderr, once, and runs without the
 * part it could not have. Linux only. */
#define _GNU_SOURCE
#include "hz_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

struct hz_mount_attr {   /* struct mount_attr of linux/mount.h */
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* mount_setattr(2) on path and every mount below it. */
static int set_attr(const char *path, uint64_t set, uint64_t clr)
{
#ifdef SYS_mount_setattr
    struct hz_mount_attr a = {set, clr, 0, 0};
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof a);
#else
    (void)path;
    (void)set;
    (void)clr;
    errno = ENOSYS;
    return -1;
#endif
}

int hz_sandbox_enter(const char *workdir, char *err, size_t errlen)
{
#ifdef __linux__
    uid_t uid = getuid();
    gid_t gid = getgid();
    int flags = CLONE_NEWNET | CLONE_NEWNS | (uid != 0 ? CLONE_NEWUSER : 0);
    if (unshare(flags) < 0) {
        snprintf(err, errlen, "the kernel does not let this user make network and mount "
                 "namespaces (unshare: %s): running WITHOUT the sandbox (no network or "
                 "file-system isolation); use a container instead", strerror(errno));
        return -1;
    }
    if (uid != 0) {
        char map[64];
        write_file("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)uid, (unsigned long)uid);
        int a = write_file("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)gid, (unsigned long)gid);
        if (a < 0 || write_file("/proc/self/gid_map", map) < 0) {
            snprintf(err, errlen, "cannot map the user into its namespace (%s): the network "
                     "is isolated, the file system is NOT", strerror(errno));
            return -1;
        }
    }
    /* Nothing done here reaches the host's mounts. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount(workdir, workdir, NULL, MS_BIND | MS_REC, NULL) < 0 ||
        set_attr("/", MOUNT_ATTR_RDONLY, 0) < 0 ||
        set_attr(workdir, 0, MOUNT_ATTR_RDONLY) < 0) {
        snprintf(err, errlen, "cannot make the file system read-only (%s): the network is "
                 "isolated, the file system is NOT", strerror(errno));
        return -1;
    }
    return 0;
#else
    (void)workdir;
    snprintf(err, errlen, "--sandbox needs Linux namespaces: running WITHOUT it");
    return -1;
#endif
}
