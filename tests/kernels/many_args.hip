// SPDX-License-Identifier: MIT
// Test kernel: arguments of many sizes and alignments, including a struct passed by value.
#include "kernel_test.h"

struct KtPacked {
  char tag;
  double value;
  short small[3];
};

extern "C" __global__ void many_args(char c, short s, int i, long long ll, float f, double d,
                                     KtPacked p, bool flag, unsigned char uc, const int* in,
                                     long long* out, int last) {
  long long acc = c + s + i + ll + (long long)f + (long long)d + p.tag + (long long)p.value +
                  p.small[0] + p.small[2] + flag + uc + in[KT_TID_X] + last;
  out[KT_GID_X] = acc;
}
