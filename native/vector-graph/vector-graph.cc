// The HNSW graph of one namespace segment, for hnsw-worker.js: hnswlib (header-only, taken from
// the hnswlib-node package) over 8-bit codes of the vectors (sq8-space.h), and the same codes
// transposed for exact scans (code-columns.h). Vectors cross from JavaScript as Float32Array
// views, without the per-element conversions of a JS array.
#include <napi.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "code-columns.h"
#include "sq8-space.h"

namespace {

using Graph = hnswlib::HierarchicalNSW<float>;

class AllowedLabels : public hnswlib::BaseFilterFunctor {
 public:
  explicit AllowedLabels(std::unordered_set<hnswlib::labeltype> labels) : labels_(std::move(labels)) {}
  bool operator()(hnswlib::labeltype label) override { return labels_.count(label) > 0; }

 private:
  std::unordered_set<hnswlib::labeltype> labels_;
};

class VectorGraph;

/** Reads or writes a graph file off the JavaScript thread; the graph object is kept alive meanwhile. */
class FileWork : public Napi::AsyncWorker {
 public:
  FileWork(Napi::Env env, VectorGraph* owner, std::string file, bool reading)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), owner_(owner), file_(std::move(file)),
        reading_(reading) {}
  Napi::Promise promise() { return deferred_.Promise(); }
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  VectorGraph* owner_;
  std::string file_;
  bool reading_;
  std::unique_ptr<Graph> loaded_;
};

class VectorGraph : public Napi::ObjectWrap<VectorGraph> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function constructor = DefineClass(env, "VectorGraph",
        {
            InstanceMethod("init", &VectorGraph::init),
            InstanceMethod("read", &VectorGraph::read),
            InstanceMethod("write", &VectorGraph::write),
            InstanceMethod("add", &VectorGraph::add),
            InstanceMethod("remove", &VectorGraph::remove),
            InstanceMethod("search", &VectorGraph::search),
            InstanceMethod("scores", &VectorGraph::scores),
            InstanceMethod("scan", &VectorGraph::scan),
            InstanceMethod("resize", &VectorGraph::resize),
            InstanceMethod("capacity", &VectorGraph::capacity),
            InstanceMethod("count", &VectorGraph::count),
            InstanceMethod("labels", &VectorGraph::labels),
            InstanceMethod("release", &VectorGraph::release),
        });
    exports.Set("VectorGraph", constructor);
    return exports;
  }

  explicit VectorGraph(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<VectorGraph>(info), space_(dimensionsOf(info)), columns_(space_.layout().dimensions) {
    code_.resize(space_.get_data_size());
  }

  sq8::Space space_;
  std::unique_ptr<Graph> graph_;
  /**
   * The codes transposed for scan(), built by the first scan and kept up to date from then on: a
   * graph whose queries never suit a scan (dense ones over many elements) does not hold its codes twice.
   */
  sq8::CodeColumns columns_;
  bool columnsBuilt_ = false;

  void dropColumns() {
    columns_.clear();
    columnsBuilt_ = false;
  }
  /** A write in progress: mutations would race with it (hnsw-worker.js queues them meanwhile). */
  bool busy_ = false;

 private:
  static size_t dimensionsOf(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsNumber() || info[0].As<Napi::Number>().Int64Value() < 1) {
      Napi::TypeError::New(info.Env(), "dimensions must be a positive integer").ThrowAsJavaScriptException();
      return 1;
    }
    return static_cast<size_t>(info[0].As<Napi::Number>().Int64Value());
  }

  static Napi::Value fail(Napi::Env env, const std::string& message) {
    Napi::Error::New(env, message).ThrowAsJavaScriptException();
    return env.Undefined();
  }

  /** False, after throwing, while a file read or write runs (it would race with any change). */
  bool idle(Napi::Env env) {
    if (busy_) Napi::Error::New(env, "vector graph is being written").ThrowAsJavaScriptException();
    return !busy_;
  }

  /** False, after throwing, without a graph, or when `mutating` while a file read or write runs. */
  bool ready(Napi::Env env, bool mutating) {
    if (!graph_) {
      Napi::Error::New(env, "vector graph is not initialized").ThrowAsJavaScriptException();
      return false;
    }
    return !mutating || idle(env);
  }

  /** The non-negative integer argument `at` into `out`; false after throwing. */
  static bool countArg(const Napi::CallbackInfo& info, size_t at, size_t& out) {
    if (info.Length() <= at || !info[at].IsNumber()) {
      Napi::TypeError::New(info.Env(), "expected a number as argument " + std::to_string(at + 1))
          .ThrowAsJavaScriptException();
      return false;
    }
    const double value = info[at].As<Napi::Number>().DoubleValue();
    if (!(value >= 0 && value <= 9007199254740991.0) || value != static_cast<double>(static_cast<int64_t>(value))) {
      Napi::RangeError::New(info.Env(), "expected a non-negative integer as argument " + std::to_string(at + 1))
          .ThrowAsJavaScriptException();
      return false;
    }
    out = static_cast<size_t>(value);
    return true;
  }

  /** The Float32Array argument `at`, checked against the dimensions; nullptr after throwing. */
  const float* vectorArg(const Napi::CallbackInfo& info, size_t at) {
    if (info.Length() <= at || !info[at].IsTypedArray() ||
        info[at].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
      Napi::TypeError::New(info.Env(), "expected a Float32Array").ThrowAsJavaScriptException();
      return nullptr;
    }
    Napi::Float32Array vector = info[at].As<Napi::Float32Array>();
    if (vector.ElementLength() != space_.layout().dimensions) {
      Napi::RangeError::New(info.Env(), "vector has " + std::to_string(vector.ElementLength()) +
                                            " dimensions, the graph " + std::to_string(space_.layout().dimensions))
          .ThrowAsJavaScriptException();
      return nullptr;
    }
    const float* data = vector.Data();
    for (size_t i = 0; i < vector.ElementLength(); i++) {
      if (!std::isfinite(data[i])) {
        // One would make the code's step infinite and its distances NaN, which breaks the graph's heaps.
        Napi::RangeError::New(info.Env(), "vector has a component that is not a finite number")
            .ThrowAsJavaScriptException();
        return nullptr;
      }
    }
    return data;
  }

  /** init(maxElements, m, efConstruction, seed): a new empty graph. */
  Napi::Value init(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!idle(env)) return env.Undefined();
    size_t maxElements, m, efConstruction, seed;
    if (!countArg(info, 0, maxElements) || !countArg(info, 1, m) || !countArg(info, 2, efConstruction) ||
        !countArg(info, 3, seed)) {
      return env.Undefined();
    }
    if (m < 2) return fail(env, "m must be at least 2");
    try {
      graph_ = std::make_unique<Graph>(&space_, maxElements, m, efConstruction, seed, true);
      dropColumns();
    } catch (const std::exception& error) {
      return fail(env, error.what());
    }
    return env.Undefined();
  }

  /** read(file): a promise; rejects when the file is missing, damaged or of another vector format. */
  Napi::Value read(const Napi::CallbackInfo& info) { return fileWork(info, true); }

  /** write(file): a promise; the graph refuses mutations until it settles. */
  Napi::Value write(const Napi::CallbackInfo& info) { return fileWork(info, false); }

  Napi::Value fileWork(const Napi::CallbackInfo& info, bool reading) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) return fail(env, "expected a file name");
    if (!idle(env)) return env.Undefined();
    if (!reading && !graph_) return fail(env, "vector graph is not initialized");
    busy_ = true;
    Ref();
    auto* work = new FileWork(env, this, info[0].As<Napi::String>().Utf8Value(), reading);
    Napi::Promise promise = work->promise();
    work->Queue();
    return promise;
  }

  /** add(vector, label): inserts, reusing a deleted element's slot when there is one. */
  Napi::Value add(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!ready(env, true)) return env.Undefined();
    const float* vector = vectorArg(info, 0);
    size_t label;
    if (!vector || !countArg(info, 1, label)) return env.Undefined();
    sq8::quantize(vector, space_.layout(), code_.data());
    try {
      graph_->addPoint(code_.data(), static_cast<hnswlib::labeltype>(label), true);
      if (columnsBuilt_) {
        // A new element, the reused slot of a deleted one or the label's own, updated in place.
        const hnswlib::tableint id = graph_->label_lookup_.at(static_cast<hnswlib::labeltype>(label));
        columns_.set(id, graph_->getDataByInternalId(id));
      }
    } catch (const std::exception& error) {
      return fail(env, error.what());
    }
    return env.Undefined();
  }

  /** remove(label): whether the label was in the graph and not deleted yet. */
  Napi::Value remove(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    size_t label;
    if (!ready(env, true) || !countArg(info, 0, label)) return env.Undefined();
    try {
      graph_->markDelete(static_cast<hnswlib::labeltype>(label));
      return Napi::Boolean::New(env, true);
    } catch (const std::exception&) {
      return Napi::Boolean::New(env, false);  // unknown or already deleted
    }
  }

  /** The optional Float64Array of allowed labels at `at` into `out` (left empty when absent); false after throwing. */
  static bool allowedArg(const Napi::CallbackInfo& info, size_t at, std::unique_ptr<AllowedLabels>& out) {
    if (info.Length() <= at || info[at].IsUndefined()) return true;
    if (!info[at].IsTypedArray() || info[at].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
      Napi::TypeError::New(info.Env(), "allowed labels must be a Float64Array").ThrowAsJavaScriptException();
      return false;
    }
    Napi::Float64Array allowed = info[at].As<Napi::Float64Array>();
    std::unordered_set<hnswlib::labeltype> labels;
    labels.reserve(allowed.ElementLength());
    for (size_t i = 0; i < allowed.ElementLength(); i++) labels.insert(static_cast<hnswlib::labeltype>(allowed[i]));
    out = std::make_unique<AllowedLabels>(std::move(labels));
    return true;
  }

  /** search(query, k, ef, allowed?): `{ labels: Float64Array, distances: Float32Array }`, nearest first. */
  Napi::Value search(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!ready(env, false)) return env.Undefined();
    const float* query = vectorArg(info, 0);
    size_t k, ef;
    if (!query || !countArg(info, 1, k) || !countArg(info, 2, ef)) return env.Undefined();
    sq8::quantize(query, space_.layout(), code_.data());
    std::unique_ptr<AllowedLabels> filter;
    if (!allowedArg(info, 3, filter)) return env.Undefined();
    std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
    try {
      graph_->setEf(ef);
      found = graph_->searchKnn(code_.data(), k, filter.get());
    } catch (const std::exception& error) {
      return fail(env, error.what());
    }
    const size_t n = found.size();
    Napi::Float64Array labels = Napi::Float64Array::New(env, n);
    Napi::Float32Array distances = Napi::Float32Array::New(env, n);
    for (size_t i = n; i-- > 0; found.pop()) {
      distances[i] = found.top().first;
      labels[i] = static_cast<double>(found.top().second);
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("labels", labels);
    result.Set("distances", distances);
    return result;
  }

  /**
   * scores(query, labels): a Float64Array of each label's cosine with the (float) query, NaN for a
   * label the graph does not hold or holds deleted. Computed as codeDot in vector-codes.ts computes
   * it, component after component in double precision (where the product of a float and an 8-bit
   * integer is exact, fused or not), then times the code's step: a score is the same bits whether
   * this graph or SQLite held the code, so every node ranks alike.
   */
  Napi::Value scores(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!ready(env, false)) return env.Undefined();
    const float* query = vectorArg(info, 0);
    if (!query) return env.Undefined();
    if (info.Length() < 2 || !info[1].IsTypedArray() ||
        info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
      Napi::TypeError::New(env, "labels must be a Float64Array").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Float64Array labels = info[1].As<Napi::Float64Array>();
    const size_t dimensions = space_.layout().dimensions;
    Napi::Float64Array out = Napi::Float64Array::New(env, labels.ElementLength());
    for (size_t i = 0; i < labels.ElementLength(); i++) {
      const auto found = graph_->label_lookup_.find(static_cast<hnswlib::labeltype>(labels[i]));
      if (found == graph_->label_lookup_.end() || graph_->isMarkedDeleted(found->second)) {
        out[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const char* code = graph_->getDataByInternalId(found->second);
      const int8_t* components = reinterpret_cast<const int8_t*>(code);
      double sum = 0;
      for (size_t d = 0; d < dimensions; d++) sum += static_cast<double>(query[d]) * static_cast<double>(components[d]);
      float step;
      std::memcpy(&step, code + dimensions, sizeof step);
      out[i] = sum * static_cast<double>(step);
    }
    return out;
  }

  /**
   * scan(query, k, allowed?): the exact `k` nearest live elements (of `allowed` only, when given),
   * `{ labels: Float64Array, scores: Float64Array }` best first, each score as scores() computes it.
   * It reads the transposed codes only in the dimensions where the query is not zero, so its cost
   * is those dimensions times the elements stored (hnsw-worker.js weighs it against a graph search).
   */
  Napi::Value scan(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!ready(env, false)) return env.Undefined();
    const float* query = vectorArg(info, 0);
    size_t k;
    std::unique_ptr<AllowedLabels> filter;
    if (!query || !countArg(info, 1, k) || !allowedArg(info, 2, filter)) return env.Undefined();
    Graph& graph = *graph_;
    const size_t count = graph.getCurrentElementCount();
    std::vector<std::pair<double, size_t>> best;
    try {
      if (!columnsBuilt_) {
        columns_.reserve(graph.getMaxElements());
        columns_.setAll(count, [&](size_t id) { return graph.getDataByInternalId(static_cast<hnswlib::tableint>(id)); });
        columnsBuilt_ = true;
      }
      best = columns_.best(query, count, k, [&](size_t id) {
        const auto internal = static_cast<hnswlib::tableint>(id);
        return !graph.isMarkedDeleted(internal) && (!filter || (*filter)(graph.getExternalLabel(internal)));
      });
    } catch (const std::exception& error) {
      dropColumns();  // out of memory: the next scan builds them again
      return fail(env, error.what());
    }
    Napi::Float64Array labels = Napi::Float64Array::New(env, best.size());
    Napi::Float64Array scores = Napi::Float64Array::New(env, best.size());
    for (size_t i = 0; i < best.size(); i++) {
      scores[i] = best[i].first;
      labels[i] = static_cast<double>(graph.getExternalLabel(static_cast<hnswlib::tableint>(best[i].second)));
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("labels", labels);
    result.Set("scores", scores);
    return result;
  }

  Napi::Value resize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    size_t maxElements;
    if (!ready(env, true) || !countArg(info, 0, maxElements)) return env.Undefined();
    try {
      graph_->resizeIndex(maxElements);
      if (columnsBuilt_) columns_.reserve(maxElements);
    } catch (const std::exception& error) {
      dropColumns();  // they would be smaller than the graph: the next scan builds them again
      return fail(env, error.what());
    }
    return env.Undefined();
  }

  Napi::Value capacity(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), graph_ ? static_cast<double>(graph_->getMaxElements()) : 0);
  }

  /** Elements stored, deleted ones included (they keep their slot until reused). */
  Napi::Value count(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), graph_ ? static_cast<double>(graph_->getCurrentElementCount()) : 0);
  }

  /** Labels of the elements stored, deleted ones included. */
  Napi::Value labels(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const size_t n = graph_ ? graph_->label_lookup_.size() : 0;
    Napi::Float64Array labels = Napi::Float64Array::New(env, n);
    size_t i = 0;
    if (graph_) for (const auto& entry : graph_->label_lookup_) labels[i++] = static_cast<double>(entry.first);
    return labels;
  }

  /** release(): frees the graph's memory now rather than when the collector finalizes the object. */
  Napi::Value release(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!idle(env)) return env.Undefined();
    graph_.reset();
    dropColumns();
    return env.Undefined();
  }

  /** The code of the vector being added or searched (calls come from one JS thread, one at a time). */
  std::vector<char> code_;
};

void FileWork::Execute() {
  try {
    if (!reading_) {
      owner_->graph_->saveIndex(file_);
      // hnswlib writes through a stream it never checks: a full disk or a file that cannot be
      // created would leave a short file or none, and the caller's rename would put it in place
      // of the last good one. So the length written is checked against the graph's.
      std::ifstream written(file_, std::ios::binary | std::ios::ate);
      if (!written.is_open()) throw std::runtime_error("cannot create " + file_);
      const std::streamoff length = written.tellg();
      if (length < 0 || static_cast<size_t>(length) != owner_->graph_->indexFileSize()) {
        throw std::runtime_error("graph file was not written completely (is the disk full?): " + file_);
      }
      return;
    }
    if (!std::ifstream(file_).is_open()) throw std::runtime_error("cannot open " + file_);
    loaded_ = std::make_unique<Graph>(&owner_->space_, file_, false, 0, true);
    // hnswlib takes the element layout from the file: one written for other dimensions or for
    // float vectors would load and then compare garbage.
    if (loaded_->label_offset_ - loaded_->offsetData_ != owner_->space_.get_data_size()) {
      throw std::runtime_error("graph file was written for another vector format");
    }
  } catch (const std::exception& error) {
    loaded_.reset();
    SetError(error.what());
  }
}

void FileWork::OnOK() {
  if (reading_) {
    owner_->graph_ = std::move(loaded_);
    owner_->dropColumns();
  }
  owner_->busy_ = false;
  owner_->Unref();
  deferred_.Resolve(Env().Undefined());
}

void FileWork::OnError(const Napi::Error& error) {
  owner_->busy_ = false;
  owner_->Unref();
  deferred_.Reject(error.Value());
}

}  // namespace

Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return VectorGraph::Init(env, exports); }

NODE_API_MODULE(vector_graph, InitAddon)
