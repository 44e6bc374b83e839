// A second, transposed copy of a graph's 8-bit codes, for exact searches by scanning: each
// dimension's components of every element side by side. A query that is zero in most dimensions
// (the builtin embedder's, from a short text) then reads only its dimensions' columns, about a
// tenth of the codes, and reads them in order, which the hardware prefetches (with the elements
// in small blocks instead, the dimensions it reads would be scattered cache lines, each a miss).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

namespace sq8 {

class CodeColumns {
 public:
  explicit CodeColumns(size_t dimensions) : dimensions_(dimensions) {}

  /**
   * Room for element ids below `capacity`; growing copies every column once. The memory is not
   * zero-filled: an element is read only after set() or setAll() wrote it, and the pages of room
   * not used yet then stay out of the process's memory.
   */
  void reserve(size_t capacity) {
    if (capacity <= stride_) return;
    std::unique_ptr<int8_t[]> components(new int8_t[dimensions_ * capacity]);
    std::unique_ptr<float[]> steps(new float[capacity]);
    if (stride_ > 0) {
      for (size_t d = 0; d < dimensions_; d++) {
        std::memcpy(components.get() + d * capacity, components_.get() + d * stride_, stride_);
      }
      std::memcpy(steps.get(), steps_.get(), stride_ * sizeof(float));
    }
    components_ = std::move(components);
    steps_ = std::move(steps);
    stride_ = capacity;
  }

  /** Stores the code (components then step, as sq8-space.h lays it out) of element `id` (below the capacity). */
  void set(size_t id, const char* code) {
    const int8_t* components = reinterpret_cast<const int8_t*>(code);
    for (size_t d = 0; d < dimensions_; d++) components_[d * stride_ + id] = components[d];
    std::memcpy(steps_.get() + id, code + dimensions_, sizeof(float));
  }

  /**
   * Stores the codes of elements `[0, count)`, `codeOf(id)` giving each: a group of elements at a
   * time, so that each column is written a run of bytes at a time rather than one byte per element.
   */
  template <typename CodeOf>
  void setAll(size_t count, CodeOf codeOf) {
    constexpr size_t kGroup = 64;
    const char* codes[kGroup];
    for (size_t first = 0; first < count; first += kGroup) {
      const size_t n = std::min(kGroup, count - first);
      for (size_t j = 0; j < n; j++) {
        codes[j] = codeOf(first + j);
        std::memcpy(steps_.get() + first + j, codes[j] + dimensions_, sizeof(float));
      }
      for (size_t d = 0; d < dimensions_; d++) {
        int8_t* column = components_.get() + d * stride_ + first;
        for (size_t j = 0; j < n; j++) column[j] = static_cast<int8_t>(codes[j][d]);
      }
    }
  }

  void clear() {
    components_.reset();
    steps_.reset();
    stride_ = 0;
  }

  /**
   * The `k` best of elements `[0, count)` that `accept` takes, as (score, id), best first. A score is
   * codeDot's: the query's components times the code's, summed in double in dimension order, times
   * the step. Dimensions where the query is zero add exact zeros, so leaving them out changes no bit.
   */
  template <typename Accept>
  std::vector<std::pair<double, size_t>> best(const float* query, size_t count, size_t k, Accept accept) const {
    std::vector<size_t> dims;
    std::vector<double> weights;
    for (size_t d = 0; d < dimensions_; d++) {
      if (query[d] != 0.0f) {
        dims.push_back(d);
        weights.push_back(static_cast<double>(query[d]));
      }
    }
    // Worst of the best so far on top.
    std::priority_queue<std::pair<double, size_t>, std::vector<std::pair<double, size_t>>, std::greater<>> top;
    // Elements are scored a tile at a time, so that the tile's sums stay in the first-level cache
    // while each column streams through it.
    constexpr size_t kTile = 2048;
    std::vector<double> sums(kTile);
    for (size_t first = 0; first < count && k > 0; first += kTile) {
      const size_t n = std::min(kTile, count - first);
      std::fill(sums.begin(), sums.end(), 0.0);
      double* tile = sums.data();
      for (size_t t = 0; t < dims.size(); t++) {
        const int8_t* column = components_.get() + dims[t] * stride_ + first;
        const double weight = weights[t];
        for (size_t j = 0; j < n; j++) tile[j] += weight * static_cast<double>(column[j]);
      }
      for (size_t j = 0; j < n; j++) {
        const double score = tile[j] * static_cast<double>(steps_[first + j]);
        if (top.size() == k && !(score > top.top().first)) continue;
        if (!accept(first + j)) continue;
        top.emplace(score, first + j);
        if (top.size() > k) top.pop();
      }
    }
    std::vector<std::pair<double, size_t>> out(top.size());
    for (size_t i = out.size(); i-- > 0; top.pop()) out[i] = top.top();
    return out;
  }

 private:
  size_t dimensions_;
  /** Elements per column: the capacity. */
  size_t stride_ = 0;
  std::unique_ptr<int8_t[]> components_;
  std::unique_ptr<float[]> steps_;
};

}  // namespace sq8
