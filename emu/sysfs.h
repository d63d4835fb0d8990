// SPDX-License-Identifier: MIT
// Path translation for the emulated sysfs (KFD topology, DRM device entries) and /dev/dri listing.
#pragma once

#include <string>

namespace emu {

// If `path` names an emulated sysfs entry, sets *out to the real file that stands for it.
bool sysfs_translate(const char* path, std::string* out);
// Removes the parts this process had to write privately (at its exit); the shared parts stay for
// the user's later processes.
void sysfs_cleanup();

}  // namespace emu
