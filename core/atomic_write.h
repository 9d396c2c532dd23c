// Writing an output file (export -o FILE, probe --save FILE) so that nothing but a regular file
// is ever replaced and a reader never sees half a file.
//
// The rules, and why:
// - Only a regular file or a symbolic link is ever replaced. A directory, FIFO, socket or device
//   node is refused even with --force: `export -o /dev/null --force` run as root must not turn
//   the device node into a file. The wrong kind of target is a bad argument (InvalidArgument,
//   exit 2), like an existing file without --force; a path the OS will not let us write (its
//   directory missing or read-only) and a failure while writing (disk full) are IoError (exit 3).
// - A symbolic link is never written through: with --force the link itself is replaced by the new
//   file (rename(2) over the link) and the file it pointed to is left as it was; without --force it
//   counts as an existing file. Writing through would let a link planted in a shared directory aim
//   the write at any file the user can write. A link to a directory, FIFO or device is refused like
//   the object itself.
// - Without --force no existing file is replaced, and the kernel decides it atomically:
//   renameat2(RENAME_NOREPLACE) of the temporary file, or link() where the file system lacks it.
//   Of N concurrent writers exactly one succeeds; the others get "already exists" (exit 2).
// - With --force the new file keeps the replaced file's permission bits and owner (fchmod and
//   fchown of the temporary file before the rename); if the owner cannot be kept the write is
//   refused rather than silently changing it. A replaced link gives the new file the permission
//   bits of the file it pointed to.
// - A new file gets `new_file_mode` minus the process umask, as open(2) would.
// - The temporary file lives in the target's directory (so the rename is atomic) and is removed
//   on every error path.
#pragma once

#include "result.h"

#include <string>

namespace headroom {

// Refuses early what writeFileAtomically() would refuse for the kind of target (a device,
// FIFO, directory; an existing file or link without `overwrite`). Not a guarantee (the target may
// change before the write, which checks again atomically); it lets a command fail before long work.
Result<bool> checkOutputTarget(const std::string& path, bool overwrite);

// `new_file_mode`: 0666 for data, 0777 for a launch script; the umask is applied to it.
Result<bool> writeFileAtomically(const std::string& path, const std::string& contents,
                                 bool overwrite, unsigned new_file_mode = 0666);

} // namespace headroom
