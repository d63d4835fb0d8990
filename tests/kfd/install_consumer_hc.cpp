// SPDX-License-Identifier: MIT
// Built by the installed kfdcc from the installed headers (install_test.py): an hc kernel and a HIP call.
#include <hc.hpp>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices < 1) {
    std::printf("no device\n");
    return 1;
  }
  std::vector<int> data(1000, 0);
  hc::array_view<int, 1> view(1000, data);
  hc::parallel_for_each(view.get_extent(), [=](hc::index<1> i) [[hc]] { view[i] = 3 * i[0] + 1; }).wait();
  view.synchronize();
  for (int i = 0; i < 1000; ++i)
    if (data[i] != 3 * i + 1) {
      std::printf("element %d is %d\n", i, data[i]);
      return 1;
    }
  std::printf("hc kernel ok\n");
  return 0;
}
