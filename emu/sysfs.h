// SPDX-License-Identifier: MIT
// Path translation for the emulated sysfs (KFD topology, DRM device entries) and /dev/dri listing.
#pragma once

#include <string>

namespace emu {

// The private directory holding the emulated tree (created on first use).
const std::string& sysfs_root();
// If `path` names an emulated sysfs entry, sets *out to the real file that stands for it.
bool sysfs_translate(const char* path, std::string* out);
// Removes the private tree (at exit of the process that made it).
void sysfs_cleanup();

}  // namespace emu
