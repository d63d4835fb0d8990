// SPDX-License-Identifier: MIT
// The HIP version whose ABI kfdrt's headers and runtime implement: HIP 5.2 (read by clang's HIP
// wrapper and by programs, which pick layouts and APIs by it).
#pragma once

#define HIP_VERSION_MAJOR 5
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "kfdrt"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "kfdrt"
// HIP's encoding: major * 10000000 + minor * 100000 + patch.
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#define __HIP_HAS_GET_PCH 0
