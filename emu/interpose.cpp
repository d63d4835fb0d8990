// SPDX-License-Identifier: MIT
// libc interposition: routes /dev/kfd, render nodes and KFD sysfs paths to the emulated device.
// Both the plain and the *64 entry points are defined here, so the header redirection that
// _FILE_OFFSET_BITS=64 performs must be off in this file (off_t is 64-bit on LP64 anyway).
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <string>

#include "emu/drm.h"
#include "emu/fd_table.h"
#include "emu/host_watch.h"
#include "emu/interpose.h"
#include "emu/kfd_process.h"
#include "emu/sysfs.h"
#include "emu/tsan_sync.h"

namespace emu {

namespace {

constexpr int kMaxFd = 1 << 16;
constexpr unsigned kKfdMajor = 236;  // dynamic on real systems; any char major works
std::atomic<unsigned char> g_kind[kMaxFd];
std::atomic<unsigned short> g_minor[kMaxFd];
std::atomic<unsigned> g_file[kMaxFd];  // identity of the open file, shared by dups
std::atomic<unsigned> g_next_file{1};
std::mutex g_fd_mu;

template <class F>
F next(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "kfdemu: libc has no %s\n", name);
    abort();
  }
  return reinterpret_cast<F>(p);
}

#define REAL(name, ...)                                               \
  using real_##name##_t = __VA_ARGS__;                                \
  static real_##name##_t real_##name##_fn = nullptr;                  \
  if (!real_##name##_fn) real_##name##_fn = next<real_##name##_t>(#name)

std::atomic<pid_t> g_pid{0};
void forget_pid_in_child() { g_pid.store(0, std::memory_order_relaxed); }

bool ours(int fd) { return fd >= 0 && fd < kMaxFd && g_kind[fd].load(std::memory_order_acquire); }

// Which emulated device a path names: Kfd, Render (with *minor), or None.
FdKind device_path(const char* path, unsigned* minor) {
  if (!path) return FdKind::None;
  if (strcmp(path, "/dev/kfd") == 0) return FdKind::Kfd;
  if (strncmp(path, "/dev/dri/renderD", 16) == 0) {
    char* end;
    unsigned long m = strtoul(path + 16, &end, 10);
    if (*end == 0 && gpu_by_minor(unsigned(m))) {
      *minor = unsigned(m);
      return FdKind::Render;
    }
  }
  return FdKind::None;
}

void register_fd(int fd, FdKind kind, unsigned minor, unsigned file) {
  if (fd < 0 || fd >= kMaxFd) return;
  g_minor[fd] = (unsigned short)minor;
  g_file[fd] = file;
  g_kind[fd].store((unsigned char)kind, std::memory_order_release);
}

int open_device(FdKind kind, unsigned minor, int flags) {
  static int (*ro)(const char*, int, ...) = next<int (*)(const char*, int, ...)>("open");
  int fd = ro("/dev/null", O_RDWR | (flags & O_CLOEXEC));
  if (fd < 0) return fd;
  if (fd >= kMaxFd) {
    close(fd);
    errno = EMFILE;
    return -1;
  }
  if (kind == FdKind::Kfd) Process::get().on_open();
  else freeze_model();
  register_fd(fd, kind, minor, g_next_file++);
  log("opened %s as fd %d", kind == FdKind::Kfd ? "/dev/kfd" : "a render node", fd);
  return fd;
}

void forget_fd(int fd) {
  if (!ours(fd)) return;
  FdKind k = FdKind(g_kind[fd].exchange(0));
  if (k == FdKind::Kfd) Process::get().on_last_close();
}

void fake_stat(FdKind kind, unsigned minor, struct stat* st) {
  memset(st, 0, sizeof *st);
  st->st_mode = S_IFCHR | 0666;
  st->st_rdev = kind == FdKind::Kfd ? makedev(kKfdMajor, 0) : makedev(226, minor);
  st->st_dev = makedev(0, 5);
  st->st_ino = kind == FdKind::Kfd ? 1000 : 2000 + minor;
  st->st_nlink = 1;
  st->st_blksize = 4096;
}

const char* translated(const char* path, std::string* buf) {
  return sysfs_translate(path, buf) ? buf->c_str() : path;
}

int do_open(const char* path, int flags, mode_t mode, bool at, int dirfd) {
  unsigned minor = 0;
  FdKind k = device_path(path, &minor);
  if (k != FdKind::None) return open_device(k, minor, flags);
  std::string buf;
  const char* p = translated(path, &buf);
  if (at) {
    REAL(openat, int (*)(int, const char*, int, ...));
    return real_openat_fn(dirfd, p, flags, mode);
  }
  REAL(open, int (*)(const char*, int, ...));
  return real_open_fn(p, flags, mode);
}

// After dup/fcntl(F_DUPFD): the new fd refers to the same open device file.
int copy_kind(int from, int to) {
  if (to >= 0 && to < kMaxFd && ours(from)) {
    FdKind k = FdKind(g_kind[from].load());
    if (k == FdKind::Kfd) Process::get().on_open();
    register_fd(to, k, g_minor[from].load(), g_file[from].load());
  }
  return to;
}

mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) ? mode_t(va_arg(ap, int)) : 0;
}

}  // namespace

pid_t own_pid() {
  pid_t p = g_pid.load(std::memory_order_relaxed);
  if (p != 0) [[likely]] return p;
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, forget_pid_in_child); });
  p = getpid();
  g_pid.store(p, std::memory_order_relaxed);
  return p;
}

FdKind fd_kind(int fd) { return ours(fd) ? FdKind(g_kind[fd].load()) : FdKind::None; }
int render_minor_of_fd(int fd) { return fd_kind(fd) == FdKind::Render ? int(g_minor[fd].load()) : -1; }
bool render_fd_same_file(int a, int b) {
  return fd_kind(a) == FdKind::Render && fd_kind(b) == FdKind::Render && g_file[a] == g_file[b];
}

int real_open(const char* path, int flags, mode_t mode) {
  REAL(open, int (*)(const char*, int, ...));
  return real_open_fn(path, flags, mode);
}
int real_mkdir(const char* path, mode_t mode) {
  REAL(mkdir, int (*)(const char*, mode_t));
  return real_mkdir_fn(path, mode);
}
DIR* real_opendir(const char* path) {
  REAL(opendir, DIR* (*)(const char*));
  return real_opendir_fn(path);
}
void* real_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  REAL(mmap, void* (*)(void*, size_t, int, int, int, off_t));
  return real_mmap_fn(addr, len, prot, flags, fd, off);
}

}  // namespace emu

using namespace emu;

extern "C" {

__attribute__((destructor)) static void kfdemu_fini() { sysfs_cleanup(); }

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = mode_arg(flags, ap);
  va_end(ap);
  return do_open(path, flags, m, false, AT_FDCWD);
}
int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = mode_arg(flags, ap);
  va_end(ap);
  return do_open(path, flags, m, false, AT_FDCWD);
}
int __open_2(const char* path, int flags) { return do_open(path, flags, 0, false, AT_FDCWD); }
int __open64_2(const char* path, int flags) { return do_open(path, flags, 0, false, AT_FDCWD); }
int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = mode_arg(flags, ap);
  va_end(ap);
  return do_open(path, flags, m, true, dirfd);
}
int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t m = mode_arg(flags, ap);
  va_end(ap);
  return do_open(path, flags, m, true, dirfd);
}
int __openat_2(int dirfd, const char* path, int flags) { return do_open(path, flags, 0, true, dirfd); }
int __openat64_2(int dirfd, const char* path, int flags) { return do_open(path, flags, 0, true, dirfd); }

FILE* fopen(const char* path, const char* mode) {
  REAL(fopen, FILE* (*)(const char*, const char*));
  std::string buf;
  return real_fopen_fn(translated(path, &buf), mode);
}
FILE* fopen64(const char* path, const char* mode) {
  REAL(fopen64, FILE* (*)(const char*, const char*));
  std::string buf;
  return real_fopen64_fn(translated(path, &buf), mode);
}

DIR* opendir(const char* path) {
  std::string buf;
  return real_opendir(translated(path, &buf));
}

int close(int fd) {
  REAL(close, int (*)(int));
  forget_fd(fd);
  return real_close_fn(fd);
}

int dup(int fd) {
  REAL(dup, int (*)(int));
  return copy_kind(fd, real_dup_fn(fd));
}
int dup2(int fd, int fd2) {
  REAL(dup2, int (*)(int, int));
  if (fd != fd2) forget_fd(fd2);
  return copy_kind(fd, real_dup2_fn(fd, fd2));
}
int dup3(int fd, int fd2, int flags) {
  REAL(dup3, int (*)(int, int, int));
  if (fd != fd2) forget_fd(fd2);
  return copy_kind(fd, real_dup3_fn(fd, fd2, flags));
}

// (Entry points that another one also serves go through a static function, never through the
// other's name, which may resolve to an interposer loaded before this library: see fstat_impl.)
static int fcntl_impl(int fd, int cmd, void* arg) {
  REAL(fcntl, int (*)(int, int, ...));
  int r = real_fcntl_fn(fd, cmd, arg);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) copy_kind(fd, r);
  return r;
}
int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl_impl(fd, cmd, arg);
}
int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl_impl(fd, cmd, arg);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (ours(fd)) {
    int r = fd_kind(fd) == FdKind::Kfd ? Process::get().ioctl(request, arg)
                                       : drm_ioctl(unsigned(render_minor_of_fd(fd)), fd, request, arg);
    if (r < 0) {
      errno = -r;
      return -1;
    }
    return r;
  }
  REAL(ioctl, int (*)(int, unsigned long, ...));
  return real_ioctl_fn(fd, request, arg);
}

static void* mmap_impl(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) host_watch_unmapped(addr, len);  // replaced pages
  if (ours(fd)) {
    if (fd_kind(fd) == FdKind::Kfd) return Process::get().mmap_kfd(addr, len, prot, flags, uint64_t(off));
    return Process::get().mmap_render(unsigned(render_minor_of_fd(fd)), addr, len, prot, flags, uint64_t(off));
  }
  void* p = real_mmap(addr, len, prot, flags, fd, off);
  // A fixed mapping replaces what was there: SVM ranges over it end, as the MMU notifier ends them.
  if (p != MAP_FAILED && (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
    Process::get().svm_unmapped(reinterpret_cast<uint64_t>(p), len);
  return p;
}

int munmap(void* addr, size_t len) {
  REAL(munmap, int (*)(void*, size_t));
  host_watch_unmapped(addr, len);  // KFDEMU_REPORT_STALE's watched pages there end
  int r = real_munmap_fn(addr, len);
  if (r == 0) Process::get().svm_unmapped(reinterpret_cast<uint64_t>(addr), len);
  if (r == 0) tsan_unmapped(addr, len);
  return r;
}
void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_impl(addr, len, prot, flags, fd, off);
}
void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_impl(addr, len, prot, flags, fd, off);
}

// --- stat family -------------------------------------------------------------------------------

static int stat_path(const char* path, struct stat* st, bool follow) {
  unsigned minor = 0;
  FdKind k = device_path(path, &minor);
  if (k != FdKind::None) {
    fake_stat(k, minor, st);
    return 0;
  }
  std::string buf;
  const char* p = translated(path, &buf);
  REAL(fstatat, int (*)(int, const char*, struct stat*, int));
  return real_fstatat_fn(AT_FDCWD, p, st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
}

int stat(const char* path, struct stat* st) { return stat_path(path, st, true); }
int stat64(const char* path, struct stat64* st) { return stat_path(path, reinterpret_cast<struct stat*>(st), true); }
int lstat(const char* path, struct stat* st) { return stat_path(path, st, false); }
int lstat64(const char* path, struct stat64* st) { return stat_path(path, reinterpret_cast<struct stat*>(st), false); }

// The entry points below call this one, not `fstat`: that name may resolve to another
// interposer loaded first (a sanitizer's fstat interceptor calls __fxstat, which would come back
// here through `fstat` for ever).
static int fstat_impl(int fd, struct stat* st) {
  if (ours(fd)) {
    fake_stat(fd_kind(fd), unsigned(render_minor_of_fd(fd) < 0 ? 0 : render_minor_of_fd(fd)), st);
    return 0;
  }
  REAL(fstat, int (*)(int, struct stat*));
  return real_fstat_fn(fd, st);
}
int fstat(int fd, struct stat* st) { return fstat_impl(fd, st); }
int fstat64(int fd, struct stat64* st) { return fstat_impl(fd, reinterpret_cast<struct stat*>(st)); }

static int fstatat_impl(int dirfd, const char* path, struct stat* st, int flags) {
  const char* p = path;  // may be NULL with AT_EMPTY_PATH on some callers
  if (p && p[0] == 0 && (flags & AT_EMPTY_PATH)) return fstat_impl(dirfd, st);
  if (p && p[0] == '/') return stat_path(path, st, !(flags & AT_SYMLINK_NOFOLLOW));
  REAL(fstatat, int (*)(int, const char*, struct stat*, int));
  return real_fstatat_fn(dirfd, path, st, flags);
}
int fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  return fstatat_impl(dirfd, path, st, flags);
}
int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) {
  return fstatat_impl(dirfd, path, reinterpret_cast<struct stat*>(st), flags);
}
int __xstat(int, const char* path, struct stat* st) { return stat_path(path, st, true); }
int __xstat64(int, const char* path, struct stat64* st) { return stat_path(path, reinterpret_cast<struct stat*>(st), true); }
int __lxstat(int, const char* path, struct stat* st) { return stat_path(path, st, false); }
int __lxstat64(int, const char* path, struct stat64* st) { return stat_path(path, reinterpret_cast<struct stat*>(st), false); }
int __fxstat(int, int fd, struct stat* st) { return fstat_impl(fd, st); }
int __fxstat64(int, int fd, struct stat64* st) { return fstat_impl(fd, reinterpret_cast<struct stat*>(st)); }

int access(const char* path, int mode) {
  unsigned minor = 0;
  if (device_path(path, &minor) != FdKind::None) return 0;
  std::string buf;
  REAL(access, int (*)(const char*, int));
  return real_access_fn(translated(path, &buf), mode);
}
int faccessat(int dirfd, const char* path, int mode, int flags) {
  unsigned minor = 0;
  if (device_path(path, &minor) != FdKind::None) return 0;
  std::string buf;
  REAL(faccessat, int (*)(int, const char*, int, int));
  return real_faccessat_fn(dirfd, translated(path, &buf), mode, flags);
}

ssize_t readlink(const char* path, char* out, size_t n) {
  std::string buf;
  REAL(readlink, ssize_t (*)(const char*, char*, size_t));
  return real_readlink_fn(translated(path, &buf), out, n);
}
ssize_t readlinkat(int dirfd, const char* path, char* out, size_t n) {
  std::string buf;
  REAL(readlinkat, ssize_t (*)(int, const char*, char*, size_t));
  return real_readlinkat_fn(dirfd, translated(path, &buf), out, n);
}
char* realpath(const char* path, char* resolved) {
  unsigned minor = 0;
  if (device_path(path, &minor) != FdKind::None) {
    char* r = resolved ? resolved : static_cast<char*>(malloc(PATH_MAX));
    if (r) snprintf(r, PATH_MAX, "%s", path);
    return r;
  }
  std::string buf;
  REAL(realpath, char* (*)(const char*, char*));
  return real_realpath_fn(translated(path, &buf), resolved);
}

}  // extern "C"
