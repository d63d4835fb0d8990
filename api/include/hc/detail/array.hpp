// SPDX-License-Identifier: MIT
// hc::array<T,N> (data resident on an accelerator) and hc::copy / copy_async between arrays, views and host ranges.
#pragma once

#include "array_view.hpp"

#include <algorithm>
#include <iterator>

namespace hc {

// N-dimensional data that lives in an accelerator's memory. Copying an array on the host
// copies the data (C++ AMP semantics); the copy parallel_for_each makes of a functor that
// captured an array is shallow, so a kernel works on the array the functor holds.
template <class T, int N = 1> class array {
  static_assert(!std::is_const_v<T>, "array element type must not be const");
  template <class, int> friend class array_view;

public:
  static constexpr int rank = N;
  typedef T value_type;

  explicit array(const extent<N>& ext) : array(ext, accelerator().get_default_view()) {}
  explicit array(int e0) requires(N == 1) : array(extent<1>(e0)) {}
  array(int e0, int e1) requires(N == 2) : array(extent<2>(e0, e1)) {}
  array(int e0, int e1, int e2) requires(N == 3) : array(extent<3>(e0, e1, e2)) {}
  array(const extent<N>& ext, accelerator_view av) : v_(make(ext, av)) {}
  array(const extent<N>& ext, accelerator_view av, accelerator_view /*associated*/) : array(ext, av) {}
  array(int e0, accelerator_view av) requires(N == 1) : array(extent<1>(e0), av) {}
  template <class It> array(const extent<N>& ext, It first) : array(ext) { copy_in(first); }
  template <class It> array(const extent<N>& ext, It first, It last) : array(ext) { copy_in(first, last); }
  template <class It>
  array(const extent<N>& ext, It first, accelerator_view av) : array(ext, av) { copy_in(first); }
  template <class It>
  array(const extent<N>& ext, It first, It last, accelerator_view av) : array(ext, av) { copy_in(first, last); }
  template <class It> array(int e0, It first, It last) requires(N == 1) : array(extent<1>(e0)) {
    copy_in(first, last);
  }
  template <class It> array(int e0, It first) requires(N == 1) : array(extent<1>(e0)) { copy_in(first); }
  template <class It> array(int e0, int e1, It first) requires(N == 2) : array(extent<2>(e0, e1)) {
    copy_in(first);
  }
  template <class It>
  array(int e0, int e1, int e2, It first) requires(N == 3) : array(extent<3>(e0, e1, e2)) {
    copy_in(first);
  }
  // An array over existing device memory (another array's accelerator_pointer(), or am_alloc
  // memory). Over an array's memory it shares that array's data and synchronisation; other
  // memory is used as it is and never freed by the array.
  array(const extent<N>& ext, void* accelerator_pointer)
      : array(ext, accelerator().get_default_view(), accelerator_pointer) {}
  array(const extent<N>& ext, accelerator_view av, void* accelerator_pointer)
      : v_(wrap(ext, av, accelerator_pointer)) {}
  array(int e0, void* p) requires(N == 1) : array(extent<1>(e0), p) {}
  array(int e0, int e1, void* p) requires(N == 2) : array(extent<2>(e0, e1), p) {}
  array(int e0, int e1, int e2, void* p) requires(N == 3) : array(extent<3>(e0, e1, e2), p) {}
  explicit array(const array_view<const T, N>& src) : array(src.get_extent()) { copy_from(src); }
  explicit array(const array_view<const T, N>& src, accelerator_view av) : array(src.get_extent(), av) {
    copy_from(src);
  }

  // Deep copy on the host (shallow inside parallel_for_each's capture and on the device).
  __host__ __device__ array(const array& o) : v_(o.v_) {
#if !HC_ON_DEVICE
    if (!detail::capture_scope::current()) deep_copy(o);
#endif
  }
  array(array&& o) noexcept : v_(o.v_) {}
  array& operator=(const array& o) {
    if (this != &o) copy(o, *this);
    return *this;
  }
  array& operator=(const array_view<const T, N>& src) {
    copy_from(src);
    return *this;
  }

  __host__ __device__ extent<N> get_extent() const { return v_.get_extent(); }
  accelerator_view get_accelerator_view() const { return accelerator_view(v_.buf_->home); }
  accelerator_view get_associated_accelerator_view() const { return get_accelerator_view(); }
  access_type get_cpu_access_type() const { return access_type_none; }

  __host__ __device__ T& operator[](const index<N>& idx) const { return v_[idx]; }
  __host__ __device__ T& operator()(const index<N>& idx) const { return v_[idx]; }
  template <class... I>
  __host__ __device__ T& operator()(int i0, I... is) const requires(sizeof...(I) == N - 1) {
    return v_(i0, is...);
  }
  __host__ __device__ T& operator[](int i) const requires(N == 1) { return v_[i]; }
  __host__ __device__ array_view<T, N - 1> operator[](int i) const requires(N > 1) { return v_[i]; }
  __host__ __device__ array_view<T, N> section(const index<N>& o, const extent<N>& e) const {
    return v_.section(o, e);
  }
  __host__ __device__ array_view<T, N> section(const index<N>& o) const { return v_.section(o); }
  __host__ __device__ array_view<T, N> section(const extent<N>& e) const { return v_.section(e); }
  template <int K> __host__ __device__ array_view<T, K> view_as(const extent<K>& e) const requires(N == 1) {
    return v_.view_as(e);
  }

  // Host: the host copy (synchronised); kernel: the device memory.
  __host__ __device__ T* data() const { return v_.data(); }
  __host__ __device__ T* accelerator_pointer() const {
#if HC_ON_DEVICE
    return v_.dev_;
#else
    auto* d = static_cast<T*>(v_.buf_->device_ptr(v_.buf_->home->device));
    v_.buf_->before_device_use(*v_.buf_->home);
    return d;
#endif
  }
  operator std::vector<T>() const {
    std::vector<T> r(get_extent().size64());
    copy(*this, r.begin());
    return r;
  }
  void copy_to(array& dst) const { copy(*this, dst); }
  void copy_to(const array_view<T, N>& dst) const { copy(*this, dst); }

  // Internal: the view covering the whole array.
  const array_view<T, N>& view() const { return v_; }

private:
  static array_view<T, N> make(const extent<N>& ext, const accelerator_view& av) {
    for (int i = 0; i < N; ++i)
      if (ext[i] < 0) throw runtime_exception("hc: array with a negative extent", -1);
    auto* b = new detail::buffer(ext.size64() * sizeof(T), nullptr, av.state());
    b->host_valid = false;
    b->device_ptr(av.state()->device);
    b->dev_valid = true;
    array_view<T, N> v(ext, b);
    v.dev_ = static_cast<T*>(b->dev);
    return v;
  }
  static array_view<T, N> wrap(const extent<N>& ext, const accelerator_view& av, void* p) {
    for (int i = 0; i < N; ++i)
      if (ext[i] < 0) throw runtime_exception("hc: array with a negative extent", -1);
    auto* b = detail::buffer_over_device_memory(p, ext.size64() * sizeof(T), av.state());
    array_view<T, N> v(ext, b);
    v.dev_ = static_cast<T*>(b->dev);
    return v;
  }
  void deep_copy(const array& o) {
    v_ = make(o.get_extent(), o.get_accelerator_view());
    copy(o, *this);
  }
  template <class It> void copy_in(It first) {
    T* h = v_.data();
    std::copy_n(first, get_extent().size64(), h);
  }
  template <class It> void copy_in(It first, It last) {
    T* h = v_.data();
    std::copy(first, last, h);
  }
  void copy_from(const array_view<const T, N>& src) { copy(src, v_); }

  array_view<T, N> v_;
};

template <class T, int N>
array_view<T, N>::array_view(array<value_type, N>& a) : array_view(a.v_) {}
template <class T, int N>
array_view<T, N>::array_view(const array<value_type, N>& a) requires(std::is_const_v<T>)
    : array_view(array_view<T, N>(a.v_)) {}

// ---- copy: element-wise through host copies, except whole array to whole array (device) ----

template <class T, int N, class OutIt> void copy(const array_view<T, N>& src, OutIt dst) {
  const extent<N> e = src.get_extent();
  array_view<const T, N> s(src);
  index<N> idx;
  for (uint64_t n = 0, total = e.size64(); n < total; ++n) {
    uint64_t r = n;
    for (int d = N - 1; d >= 0; --d) idx[d] = static_cast<int>(r % e[d]), r /= e[d];
    *dst++ = s[idx];
  }
}
template <class T, int N, class OutIt> void copy(const array<T, N>& src, OutIt dst) {
  copy(src.view(), dst);
}
template <class InIt, class T, int N> void copy(InIt first, const array_view<T, N>& dst) {
  const extent<N> e = dst.get_extent();
  index<N> idx;
  for (uint64_t n = 0, total = e.size64(); n < total; ++n, ++first) {
    uint64_t r = n;
    for (int d = N - 1; d >= 0; --d) idx[d] = static_cast<int>(r % e[d]), r /= e[d];
    dst[idx] = *first;
  }
}
template <class InIt, class T, int N> void copy(InIt first, InIt last, const array_view<T, N>& dst) {
  if (static_cast<uint64_t>(std::distance(first, last)) < dst.get_extent().size64())
    throw runtime_exception("hc::copy: source range shorter than the destination", -1);
  copy(first, dst);
}
template <class InIt, class T, int N> void copy(InIt first, array<T, N>& dst) { copy(first, dst.view()); }
template <class InIt, class T, int N> void copy(InIt first, InIt last, array<T, N>& dst) {
  copy(first, last, dst.view());
}
template <class T, int N> void copy(const array_view<const T, N>& src, const array_view<T, N>& dst) {
  if (src.get_extent() != dst.get_extent())
    throw runtime_exception("hc::copy: source and destination extents differ", -1);
  std::vector<T> tmp(src.get_extent().size64());
  copy(src, tmp.begin());
  copy(tmp.begin(), dst);
}
template <class T, int N> void copy(const array_view<T, N>& src, const array_view<T, N>& dst) requires(!std::is_const_v<T>) {
  copy(array_view<const T, N>(src), dst);
}
template <class T, int N> void copy(const array_view<const T, N>& src, array<T, N>& dst) { copy(src, dst.view()); }
template <class T, int N> void copy(const array_view<T, N>& src, array<T, N>& dst) requires(!std::is_const_v<T>) {
  copy(array_view<const T, N>(src), dst.view());
}
template <class T, int N> void copy(const array<T, N>& src, const array_view<T, N>& dst) {
  copy(array_view<const T, N>(src.view()), dst);
}

// Whole array to whole array: a device-to-device copy ordered after both arrays' users.
template <class T, int N> completion_future copy_async(const array<T, N>& src, array<T, N>& dst) {
  if (src.get_extent() != dst.get_extent())
    throw runtime_exception("hc::copy: source and destination extents differ", -1);
  const size_t bytes = src.get_extent().size64() * sizeof(T);
  T* s = src.accelerator_pointer();
  T* d = dst.accelerator_pointer();
  accelerator_view av = dst.get_accelerator_view();
  av.wait_for(src.get_accelerator_view().create_marker());
  completion_future f = av.copy_async(s, d, bytes);
  detail::buffer* db = detail::view_access<T, N>::buf(dst.view());
  detail::buffer* sb = detail::view_access<T, N>::buf(src.view());
  sb->after_device_use(f, false);
  db->after_device_use(f, true);
  return f;
}
template <class T, int N> void copy(const array<T, N>& src, array<T, N>& dst) { copy_async(src, dst).wait(); }

// The other directions complete before returning; their futures are already ready.
template <class A, class B> completion_future copy_async(const A& src, B&& dst) {
  copy(src, std::forward<B>(dst));
  return completion_future();
}
template <class A, class B, class C> completion_future copy_async(const A& first, const B& last, C&& dst) {
  copy(first, last, std::forward<C>(dst));
  return completion_future();
}

namespace detail {
template <class T, int N> struct view_access {
  static buffer* buf(const array_view<T, N>& v) { return v.buf_; }
};
} // namespace detail

} // namespace hc
