// SPDX-License-Identifier: MIT
// hc::array_view<T,N> and array_view<const T,N>: views of host or array data, synchronised automatically.
#pragma once

#include "buffer.hpp"
#include "tiled.hpp"

#include <type_traits>

namespace hc {

template <class T, int N> class array;
template <class T, int N> class array_view;

namespace detail {
template <class T, int N> struct view_access;
}

// A view of N-dimensional data. On the host it reads and writes the host copy (after waiting
// for kernels that wrote it); inside a kernel it reads and writes the device copy, which
// parallel_for_each made current. array_view<const T, N> is read-only and never copied back.
template <class T, int N = 1> class array_view {
  static_assert(N >= 1, "array_view rank must be positive");
  template <class, int> friend class array_view;
  template <class, int> friend class array;
  friend struct detail::view_access<T, N>;

public:
  static constexpr int rank = N;
  typedef std::remove_const_t<T> value_type;
  static constexpr bool is_const_view = std::is_const_v<T>;

  // Views of host memory (not owned; copied back to it on synchronisation).
  array_view(const extent<N>& ext, T* src) : array_view(ext, make_buffer(ext, src)) {}
  template <class C, class = decltype(std::declval<C&>().data())>
  array_view(const extent<N>& ext, C& c) : array_view(ext, c.data()) {}
  template <class C, class = decltype(std::declval<C&>().data())>
  array_view(int e0, C& c) requires(N == 1) : array_view(extent<1>(e0), c.data()) {}
  template <class C, class = decltype(std::declval<C&>().data())>
  array_view(int e0, int e1, C& c) requires(N == 2) : array_view(extent<2>(e0, e1), c.data()) {}
  template <class C, class = decltype(std::declval<C&>().data())>
  array_view(int e0, int e1, int e2, C& c) requires(N == 3) : array_view(extent<3>(e0, e1, e2), c.data()) {}
  array_view(int e0, T* src) requires(N == 1) : array_view(extent<1>(e0), src) {}
  array_view(int e0, int e1, T* src) requires(N == 2) : array_view(extent<2>(e0, e1), src) {}
  array_view(int e0, int e1, int e2, T* src) requires(N == 3) : array_view(extent<3>(e0, e1, e2), src) {}
  // A view with its own (host) storage.
  explicit array_view(const extent<N>& ext) requires(!std::is_const_v<T>)
      : array_view(ext, make_buffer(ext, nullptr)) {
    std::lock_guard<std::mutex> lock(buf_->m);
    buf_->ensure_host_storage_locked();
    buf_->host_valid = true;
    buf_->host_readable = true;
    host_ = static_cast<value_type*>(buf_->host);
  }
  explicit array_view(int e0) requires(N == 1 && !std::is_const_v<T>) : array_view(extent<1>(e0)) {}
  array_view(int e0, int e1) requires(N == 2 && !std::is_const_v<T>) : array_view(extent<2>(e0, e1)) {}
  array_view(int e0, int e1, int e2) requires(N == 3 && !std::is_const_v<T>)
      : array_view(extent<3>(e0, e1, e2)) {}
  // Views of an array.
  array_view(array<value_type, N>& a);
  array_view(const array<value_type, N>& a) requires(std::is_const_v<T>);

  // Copies: inside parallel_for_each's capture scope this registers the view with the kernel.
  __host__ __device__ array_view(const array_view& o)
      : buf_(o.buf_), host_(o.host_), dev_(o.dev_), ext_(o.ext_), base_(o.base_), offset_(o.offset_) {
#if !HC_ON_DEVICE
    on_host_copy();
#endif
  }
  // A read-only view of a writable one.
  template <class U>
  __host__ __device__ array_view(const array_view<U, N>& o) requires(
      std::is_const_v<T> && std::is_same_v<const U, T>)
      : buf_(o.buf_), host_(o.host_), dev_(o.dev_), ext_(o.ext_), base_(o.base_), offset_(o.offset_) {
#if !HC_ON_DEVICE
    on_host_copy();
#endif
  }
  __host__ __device__ array_view& operator=(const array_view& o) {
#if !HC_ON_DEVICE
    detail::retain(o.buf_);
    detail::release(buf_);
#endif
    buf_ = o.buf_, host_ = o.host_, dev_ = o.dev_, ext_ = o.ext_, base_ = o.base_, offset_ = o.offset_;
    return *this;
  }
  __host__ __device__ ~array_view() {
#if !HC_ON_DEVICE
    detail::release(buf_);
#endif
  }

  __host__ __device__ extent<N> get_extent() const { return ext_; }
  accelerator_view get_source_accelerator_view() const { return accelerator_view(buf_->home); }

  // Element access (host: synchronises first; device: the device copy).
  __host__ __device__ T& operator[](const index<N>& idx) const { return at(offset_ + lin(idx)); }
  __host__ __device__ T& operator()(const index<N>& idx) const { return (*this)[idx]; }
  template <class... I>
  __host__ __device__ T& operator()(int i0, I... is) const requires(sizeof...(I) == N - 1) {
    return (*this)[index<N>(i0, is...)];
  }
  __host__ __device__ T& operator[](int i) const requires(N == 1) { return at(offset_ + i); }
  // Projection: the (N-1)-dimensional slice at i of the first dimension.
  __host__ __device__ array_view<T, N - 1> operator[](int i) const requires(N > 1) {
    return projection(i);
  }
  __host__ __device__ array_view<T, N - 1> projection(int i) const requires(N > 1);

  __host__ __device__ array_view section(const index<N>& origin, const extent<N>& ext) const {
    array_view r(*this);
    r.offset_ = offset_ + lin(origin);
    r.ext_ = ext;
    return r;
  }
  __host__ __device__ array_view section(const index<N>& origin) const {
    return section(origin, ext_ - origin);
  }
  __host__ __device__ array_view section(const extent<N>& ext) const { return section(index<N>(), ext); }
  __host__ __device__ array_view section(int i0, int e0) const requires(N == 1) {
    return section(index<1>(i0), extent<1>(e0));
  }
  __host__ __device__ array_view section(int i0, int i1, int e0, int e1) const requires(N == 2) {
    return section(index<2>(i0, i1), extent<2>(e0, e1));
  }
  // Reinterprets a contiguous rank-1 view with another extent.
  template <int K> __host__ __device__ array_view<T, K> view_as(const extent<K>& ext) const requires(N == 1) {
    array_view<T, K> r(buf_, host_, dev_, ext, ext, offset_);
#if !HC_ON_DEVICE
    detail::retain(buf_);
#endif
    return r;
  }

  // Contiguous data: host pointer (synchronised) on the host, device pointer in a kernel.
  __host__ __device__ T* data() const {
#if HC_ON_DEVICE
    return dev_ + offset_;
#else
    sync_for_host();
    return host_ + offset_;
#endif
  }
  // The device address of the view's first element (allocating the device copy if needed).
  __host__ __device__ T* accelerator_pointer() const {
#if HC_ON_DEVICE
    return dev_ + offset_;
#else
    // Allocated and current on the device; writes through it are not tracked.
    buf_->before_device_use(*buf_->home);
    return static_cast<value_type*>(buf_->dev) + offset_;
#endif
  }

  void synchronize() const {
    if (!is_const_view) buf_->synchronize();
  }
  completion_future synchronize_async() const {
    if (is_const_view) return completion_future();
    return buf_->synchronize_async();
  }
  void synchronize_to(const accelerator_view& av) const { synchronize_to_async(av).wait(); }
  completion_future synchronize_to_async(const accelerator_view& av) const {
    return buf_->synchronize_to_async(*av.state());
  }
  // The current contents need not reach the device: the next kernel skips the upload.
  void discard_data() const { buf_->discard(); }
  // The host data was changed directly: the device copy is stale.
  void refresh() const { buf_->refresh(); }

private:
  __host__ __device__ array_view(detail::buffer* b, value_type* h, value_type* d, const extent<N>& e,
                                 const extent<N>& base, uint64_t off)
      : buf_(b), host_(h), dev_(d), ext_(e), base_(base), offset_(off) {}
  array_view(const extent<N>& ext, detail::buffer* b)
      : buf_(b), host_(static_cast<value_type*>(b->host)), dev_(nullptr), ext_(ext), base_(ext), offset_(0) {
    if (ext.size64() == 0 && N > 0)
      for (int i = 0; i < N; ++i)
        if (ext[i] < 0) throw runtime_exception("hc: array_view with a negative extent", -1);
  }
  static detail::buffer* make_buffer(const extent<N>& ext, T* src) {
    return new detail::buffer(ext.size64() * sizeof(T), const_cast<value_type*>(src),
                              accelerator().get_default_view().state());
  }

  void on_host_copy() {
    detail::retain(buf_);
    if (auto* s = detail::capture_scope::current())
      dev_ = static_cast<value_type*>(s->capture(buf_, !is_const_view));
  }
  void sync_for_host() const {
    if (host_ && (is_const_view ? buf_->host_readable.load(std::memory_order_acquire)
                                : buf_->host_exclusive.load(std::memory_order_acquire)))
      return;
    buf_->host_access(!is_const_view);
    host_ = static_cast<value_type*>(buf_->host);
  }
  __host__ __device__ uint64_t lin(const index<N>& idx) const {
    uint64_t l = 0;
    for (int i = 0; i < N; ++i) l = l * static_cast<uint64_t>(base_[i]) + idx[i];
    return l;
  }
  __host__ __device__ T& at(uint64_t i) const {
#if HC_ON_DEVICE
    return dev_[i];
#else
    sync_for_host();
    return host_[i];
#endif
  }

  detail::buffer* buf_;
  mutable value_type* host_;
  value_type* dev_;
  extent<N> ext_;
  extent<N> base_;
  uint64_t offset_;
};

template <class T, int N>
__host__ __device__ array_view<T, N - 1> array_view<T, N>::projection(int i) const requires(N > 1) {
  int e[N - 1], b[N - 1];
  for (int d = 1; d < N; ++d) e[d - 1] = ext_[d], b[d - 1] = base_[d];
  uint64_t stride = 1;
  for (int d = 1; d < N; ++d) stride *= static_cast<uint64_t>(base_[d]);
#if !HC_ON_DEVICE
  detail::retain(buf_);
#endif
  return array_view<T, N - 1>(buf_, host_, dev_, extent<N - 1>(e), extent<N - 1>(b),
                              offset_ + static_cast<uint64_t>(i) * stride);
}

} // namespace hc
