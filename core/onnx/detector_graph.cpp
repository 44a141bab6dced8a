#include "core/onnx/detector_graph.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/onnx/graph_builder.h"

#ifndef STAVE_VERSION
#define STAVE_VERSION "unknown"
#endif

namespace stave::onnx {

namespace proto = ::onnx;

uint16_t floatToHalf(float value) {
  uint32_t f = 0;
  std::memcpy(&f, &value, sizeof f);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t exponent = (f >> 23) & 0xffu;
  uint32_t mantissa = f & 0x7fffffu;
  if (exponent == 0xffu)  // inf, NaN (keep a quiet NaN's payload bit)
    return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow: inf
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);  // underflow: signed zero
    // Subnormal: shift the mantissa (with its implicit 1) into place, round to nearest even.
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: ok
  return static_cast<uint16_t>(sign | half);
}

namespace {

/// Python's repr of a str, as Ultralytics' metadata writes class names (str(dict)).
std::string pyRepr(const std::string& s) {
  const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = useDouble ? '"' : '\'';
  std::string out(1, q);
  for (char ch : s) {
    if (ch == '\\' || ch == q) out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + q;
}

void setTensorType(proto::ValueInfoProto* v, const std::string& name, int elemType,
                   const std::vector<std::pair<int64_t, std::string>>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elemType);
  auto* shape = t->mutable_shape();
  for (const auto& [value, param] : dims) {
    auto* d = shape->add_dim();
    if (param.empty())
      d->set_dim_value(value);
    else
      d->set_dim_param(param);
  }
}

std::string describe(const std::string& name, bool half,
                     const std::vector<std::pair<int64_t, std::string>>& dims) {
  std::string s = name + (half ? " float16 (" : " float32 (");
  for (size_t i = 0; i < dims.size(); ++i)
    s +=
        (i ? ", " : "") + (dims[i].second.empty() ? std::to_string(dims[i].first) : dims[i].second);
  return s + ")";
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The largest of the detection levels' strides (the input's size multiple).
int64_t maxStride(const model::Architecture& a) {
  return a.strides.empty() ? 0 : *std::max_element(a.strides.begin(), a.strides.end());
}

/// The options a graph cannot be built from: opset, architecture, fixed sizes.
Status checkGraphOptions(const DetectorGraph& g) {
  if (g.opset < kMinOpset || g.opset > kMaxOpset)
    return Error{"", 0, "opset",
                 "must be " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                     ", got " + std::to_string(g.opset)};
  const model::Architecture& a = g.architecture;
  if (a.layers.empty() || a.layers.back().module != "Detect")
    return Error{"", 0, "model", "no architecture to build (its last layer must be Detect)"};
  if (a.nc < 1) return Error{"", 0, "nc", "must be at least 1"};
  if (a.regMax < 2) return Error{"", 0, "reg_max", "must be at least 2"};
  if (a.strides.empty() || a.strides.size() != a.detectFrom.size() || maxStride(a) < 1)
    return Error{"", 0, "strides", "the Detect layer has no detection levels with strides"};
  const int64_t stride = maxStride(a);
  if (!g.dynamic) {
    if (g.batch < 1) return Error{"", 0, "batch", "must be at least 1"};
    for (auto [v, key] : {std::pair{g.height, "imgsz"}, std::pair{g.width, "imgsz"}})
      if (v < stride || v % stride != 0)
        return Error{"", 0, key,
                     "must be a positive multiple of the model's stride " + std::to_string(stride) +
                         ", got " + std::to_string(v)};
  }
  return Ok{};
}

/// The network's nodes and initializers into `graph`, its last output renamed "output0";
/// counts the parameters into `report`.
Status buildDetector(const DetectorGraph& g, proto::GraphProto* graph, GraphReport& report) {
  try {
    Builder builder(graph, g.half);
    const std::string result = buildNetwork(g, builder, "images");
    // The last node's output is the graph's output "output0".
    for (int i = 0; i < graph->node_size(); ++i) {
      auto* n = graph->mutable_node(i);
      for (int k = 0; k < n->output_size(); ++k)
        if (n->output(k) == result) n->set_output(k, "output0");
    }
    report.parameters = builder.parameters();
  } catch (const BuildError& e) {
    return Error{"", 0, "", e.what()};
  }
  return Ok{};
}

/// Ultralytics' metadata, in its spelling (Python literals), so its loaders read them.
void addUltralyticsMetadata(proto::ModelProto& model, const DetectorGraph& g) {
  auto meta = [&](const std::string& key, const std::string& value) {
    auto* p = model.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  };
  std::string names = "{";
  for (int i = 0; i < g.architecture.nc; ++i) {
    const std::string name = static_cast<size_t>(i) < g.names.size()
                                 ? g.names[static_cast<size_t>(i)]
                                 : std::to_string(i);
    names += (i ? ", " : "") + std::to_string(i) + ": " + pyRepr(name);
  }
  names += "}";
  meta("description", "Stave " + g.architecture.name + " detector");
  meta("author", "Stave");
  meta("date", today());
  meta("version", STAVE_VERSION);
  meta("stride", std::to_string(maxStride(g.architecture)));
  meta("task", "detect");
  meta("batch", std::to_string(g.dynamic ? 1 : g.batch));
  meta("imgsz", "[" + std::to_string(g.height) + ", " + std::to_string(g.width) + "]");
  meta("names", names);
  meta("args", std::string("{'batch': ") + std::to_string(g.dynamic ? 1 : g.batch) + ", 'half': " +
                   (g.half ? "True" : "False") + ", 'dynamic': " + (g.dynamic ? "True" : "False") +
                   ", 'nms': False, 'opset': " + std::to_string(g.opset) + "}");
  for (const auto& [k, v] : g.metadata) meta(k, v);
}

}  // namespace

Status checkOnnxModel(const std::string& bytes, const std::string& what) {
  proto::ModelProto model;
  if (!model.ParseFromString(bytes))
    return Error{what, 0, "", "not an ONNX model (the protobuf does not parse)"};
  try {
    proto::checker::check_model(model);
    // Full check: shapes and types inferred through every node, errors raised.
    proto::shape_inference::InferShapes(model, proto::OpSchemaRegistry::Instance(),
                                        proto::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    std::string why = e.what();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return Error{what, 0, "", "the ONNX checker rejects the model: " + why};
  }
  return Ok{};
}

Status checkOnnxFile(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.errors();
  return checkOnnxModel(bytes.value(), path);
}

Result<GraphReport> writeDetectorOnnx(const DetectorGraph& g, const std::string& path) {
  if (auto st = checkGraphOptions(g); !st) return st.errors();
  const model::Architecture& a = g.architecture;

  proto::ModelProto model;
  model.set_ir_version(8);  // what ONNX 1.12 writes for opsets up to 17
  model.set_producer_name("Stave");
  model.set_producer_version(STAVE_VERSION);
  model.set_model_version(1);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opset);
  auto* graph = model.mutable_graph();
  graph->set_name("stave_" + a.family + "_detect");

  const int elem = g.half ? proto::TensorProto_DataType_FLOAT16 : proto::TensorProto_DataType_FLOAT;
  std::vector<std::pair<int64_t, std::string>> in, out;
  int64_t anchors = 0;
  for (auto s : a.strides) anchors += (g.height / s) * (g.width / s);
  if (g.dynamic) {
    in = {{0, "batch"}, {3, ""}, {0, "height"}, {0, "width"}};
    out = {{0, "batch"}, {4 + a.nc, ""}, {0, "anchors"}};
  } else {
    in = {{g.batch, ""}, {3, ""}, {g.height, ""}, {g.width, ""}};
    out = {{g.batch, ""}, {4 + a.nc, ""}, {anchors, ""}};
  }
  setTensorType(graph->add_input(), "images", elem, in);

  GraphReport report;
  if (auto st = buildDetector(g, graph, report); !st) return st.errors();
  setTensorType(graph->add_output(), "output0", elem, out);
  addUltralyticsMetadata(model, g);

  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return Error{path, 0, "", "the model could not be serialised (over 2 GB?)"};
  if (auto st = checkOnnxModel(bytes, path); !st) return st.errors();
  if (auto st = writeFileAtomic(path, bytes); !st) return st.errors();
  report.nodes = graph->node_size();
  report.initializers = graph->initializer_size();
  report.bytes = static_cast<int64_t>(bytes.size());
  report.input = describe("images", g.half, in);
  report.output = describe("output0", g.half, out);
  return report;
}

}  // namespace stave::onnx
