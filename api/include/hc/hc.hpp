// SPDX-License-Identifier: MIT
// The hc API (hcc's HSA extension of C++ AMP) as a header library over kfdrt's HIP runtime; compile with kfdcc.
#pragma once

#include "detail/config.hpp"
#include "detail/index.hpp"
#include "detail/tiled.hpp"
#include "detail/future.hpp"
#include "detail/runtime.hpp"
#include "detail/accelerator.hpp"
#include "detail/buffer.hpp"
#include "detail/array_view.hpp"
#include "detail/array.hpp"
#include "detail/launch.hpp"
#include "detail/device.hpp"
