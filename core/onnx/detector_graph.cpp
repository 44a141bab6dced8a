#include "core/onnx/detector_graph.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <sstream>

#include "core/base/atomic_file.h"

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

/// Appends nodes and initializers to one graph; every value gets a unique name.
class Builder {
 public:
  Builder(proto::GraphProto* graph, bool half) : m_graph(graph), m_half(half) {}

  int floatType() const {
    return m_half ? proto::TensorProto_DataType_FLOAT16 : proto::TensorProto_DataType_FLOAT;
  }

  /// A float initializer (stored as float16 when the graph is half).
  std::string floats(const std::string& name, const std::vector<int64_t>& shape,
                     const std::vector<float>& values) {
    auto* t = m_graph->add_initializer();
    t->set_name(name);
    for (auto d : shape) t->add_dims(d);
    t->set_data_type(floatType());
    std::string raw;
    if (m_half) {
      raw.resize(values.size() * 2);
      for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t h = floatToHalf(values[i]);
        std::memcpy(&raw[i * 2], &h, 2);  // little-endian, as raw_data requires
      }
    } else {
      raw.resize(values.size() * 4);
      std::memcpy(raw.data(), values.data(), raw.size());
    }
    t->set_raw_data(raw);
    m_parameters += static_cast<int64_t>(values.size());
    return name;
  }

  /// An int64 initializer.
  std::string ints(const std::string& name, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values) {
    auto* t = m_graph->add_initializer();
    t->set_name(name);
    for (auto d : shape) t->add_dims(d);
    t->set_data_type(proto::TensorProto_DataType_INT64);
    std::string raw(values.size() * 8, '\0');
    std::memcpy(raw.data(), values.data(), raw.size());
    t->set_raw_data(raw);
    return name;
  }

  /// A node with one output named after it.
  proto::NodeProto* node(const std::string& type, const std::vector<std::string>& inputs,
                         const std::string& name, int outputs = 1) {
    auto* n = m_graph->add_node();
    n->set_op_type(type);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (int k = 0; k < outputs; ++k)
      n->add_output(outputs == 1 ? name + "_output_0" : name + "_output_" + std::to_string(k));
    return n;
  }
  std::string op(const std::string& type, const std::vector<std::string>& inputs,
                 const std::string& name) {
    return node(type, inputs, name)->output(0);
  }

  static void attr(proto::NodeProto* n, const std::string& key, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(proto::AttributeProto_AttributeType_INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void attr(proto::NodeProto* n, const std::string& key, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(proto::AttributeProto_AttributeType_INT);
    a->set_i(v);
  }
  static void attr(proto::NodeProto* n, const std::string& key, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(proto::AttributeProto_AttributeType_STRING);
    a->set_s(v);
  }

  int64_t parameters() const { return m_parameters; }

 private:
  proto::GraphProto* m_graph;
  bool m_half;
  int64_t m_parameters = 0;
};

/// Raised while building: a weight missing or of the wrong shape.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

/// The YOLOv8 graph over a DetectorGraph's weights, layer by layer as YoloImpl::forward runs.
class DetectorBuilder {
 public:
  DetectorBuilder(const DetectorGraph& g, proto::GraphProto* graph) : m_g(g), m_b(graph, g.half) {
    m_zero = m_b.ints("const_zero", {}, {0});
    m_one = m_b.ints("const_one", {}, {1});
    m_axis0 = m_b.ints("const_axes_0", {1}, {0});
    m_axis1 = m_b.ints("const_axes_1", {1}, {1});
    m_halfCell = m_b.floats("const_cell_centre", {}, {0.5f});
    m_two = m_b.floats("const_two", {}, {2.0f});
    m_rowShape = m_b.ints("const_row_shape", {2}, {1, -1});
  }

  /// images -> output0.
  std::string build(const std::string& images) {
    auto x2 = c2f("model.2", conv("model.1", conv("model.0", images, 2), 2), true);
    auto p3 = c2f("model.4", conv("model.3", x2, 2), true);
    auto p4 = c2f("model.6", conv("model.5", p3, 2), true);
    auto p5 = sppf("model.9", c2f("model.8", conv("model.7", p4, 2), true));
    auto x12 = c2f("model.12", concat({upsample("model.10", p5), p4}, "model.11"), false);
    auto x15 = c2f("model.15", concat({upsample("model.13", x12), p3}, "model.14"), false);
    auto x18 = c2f("model.18", concat({conv("model.16", x15, 2), x12}, "model.17"), false);
    auto x21 = c2f("model.21", concat({conv("model.19", x18, 2), p5}, "model.20"), false);
    return detect({x15, x18, x21});
  }

  int64_t parameters() const { return m_b.parameters(); }

 private:
  const Array& weight(const std::string& key) const {
    auto it = m_g.weights.find(key);
    if (it == m_g.weights.end()) throw BuildError("the weights have no " + key);
    size_t n = 1;
    for (auto d : it->second.shape) n *= static_cast<size_t>(d);
    if (n != it->second.values.size())
      throw BuildError(key + ": shape " + shapeText(it->second.shape) + " but " +
                       std::to_string(it->second.values.size()) + " values");
    return it->second;
  }
  bool has(const std::string& key) const { return m_g.weights.count(key) > 0; }

  /// Convolution (with its folded BatchNorm as bias), then SiLU unless `act` is false.
  std::string conv(const std::string& module, const std::string& x, int64_t stride = 1,
                   bool act = true) {
    const Array& w = weight(module + ".weight");
    if (w.shape.size() != 4 || w.shape[2] != w.shape[3])
      throw BuildError(module + ".weight: expected (out, in, k, k), got " + shapeText(w.shape));
    std::vector<std::string> inputs{x, m_b.floats(module + ".weight", w.shape, w.values)};
    if (has(module + ".bias")) {
      const Array& b = weight(module + ".bias");
      if (b.shape != std::vector<int64_t>{w.shape[0]})
        throw BuildError(module + ".bias: expected (" + std::to_string(w.shape[0]) + "), got " +
                         shapeText(b.shape));
      inputs.push_back(m_b.floats(module + ".bias", b.shape, b.values));
    }
    const int64_t k = w.shape[2];
    auto* n = m_b.node("Conv", inputs, "/" + module + "/Conv");
    Builder::attr(n, "kernel_shape", std::vector<int64_t>{k, k});
    Builder::attr(n, "strides", std::vector<int64_t>{stride, stride});
    Builder::attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    Builder::attr(n, "dilations", std::vector<int64_t>{1, 1});
    Builder::attr(n, "group", int64_t{1});
    std::string y = n->output(0);
    if (!act) return y;
    // SiLU as x * sigmoid(x), as every runtime has both.
    auto s = m_b.op("Sigmoid", {y}, "/" + module + "/act/Sigmoid");
    return m_b.op("Mul", {y, s}, "/" + module + "/act/Mul");
  }

  std::string concat(const std::vector<std::string>& xs, const std::string& module,
                     int64_t axis = 1) {
    auto* n = m_b.node("Concat", xs, "/" + module + "/Concat");
    Builder::attr(n, "axis", axis);
    return n->output(0);
  }

  /// CSP block: cv1, split in two halves, n bottlenecks on the last half each, all concatenated,
  /// cv2.
  std::string c2f(const std::string& module, const std::string& x, bool shortcut) {
    auto y = conv(module + ".cv1", x);
    const int64_t c = weight(module + ".cv1.weight").shape[0] / 2;
    auto* split = m_b.node("Split", {y, m_b.ints(module + ".split", {2}, {c, c})},
                           "/" + module + "/Split", 2);
    Builder::attr(split, "axis", int64_t{1});
    std::vector<std::string> ys{split->output(0), split->output(1)};
    for (int i = 0; has(module + ".m." + std::to_string(i) + ".cv1.weight"); ++i) {
      const std::string m = module + ".m." + std::to_string(i);
      auto h = conv(m + ".cv2", conv(m + ".cv1", ys.back()));
      if (shortcut) h = m_b.op("Add", {ys.back(), h}, "/" + m + "/Add");
      ys.push_back(h);
    }
    return conv(module + ".cv2", concat(ys, module));
  }

  /// Spatial pyramid pooling (fast): cv1, three chained 5x5 max pools, concatenated, cv2.
  std::string sppf(const std::string& module, const std::string& x) {
    std::vector<std::string> ys{conv(module + ".cv1", x)};
    for (int i = 0; i < 3; ++i) {
      auto* n = m_b.node("MaxPool", {ys.back()}, "/" + module + "/m/MaxPool_" + std::to_string(i));
      Builder::attr(n, "kernel_shape", std::vector<int64_t>{5, 5});
      Builder::attr(n, "strides", std::vector<int64_t>{1, 1});
      Builder::attr(n, "pads", std::vector<int64_t>{2, 2, 2, 2});
      ys.push_back(n->output(0));
    }
    return conv(module + ".cv2", concat(ys, module));
  }

  /// Nearest-neighbour upsampling by 2 (torch's "nearest": source index = floor(dst / 2)).
  std::string upsample(const std::string& module, const std::string& x) {
    // Resize's scales are float32 whatever the data type.
    auto* t = m_b.node("Resize", {x, "", scalesInput()}, "/" + module + "/Resize");
    Builder::attr(t, "mode", std::string("nearest"));
    Builder::attr(t, "coordinate_transformation_mode", std::string("asymmetric"));
    Builder::attr(t, "nearest_mode", std::string("floor"));
    return t->output(0);
  }
  std::string scalesInput() {
    if (!m_scales.empty()) return m_scales;
    // Always float32 (Resize requires it), so not through Builder::floats.
    m_scales = "const_upsample_scales";
    m_scalesNeeded = true;
    return m_scales;
  }

 public:
  /// The float32 scales tensor Resize reads (added by the caller: it is not of the graph's type).
  bool scalesNeeded() const { return m_scalesNeeded; }

 private:
  /// The head: per level a box branch and a class branch; boxes decoded (DFL expectation,
  /// anchors from the level's own size, so any input size works) to centre x/y, width, height
  /// in input pixels; classes through the sigmoid; levels concatenated.
  std::string detect(const std::vector<std::string>& xs) {
    const int64_t r = m_g.regMax;
    const Array& dflWeight = weight("model.22.dfl.conv.weight");
    if (dflWeight.shape != std::vector<int64_t>{1, r, 1, 1})
      throw BuildError("model.22.dfl.conv.weight: expected " + shapeText({1, r, 1, 1}) + ", got " +
                       shapeText(dflWeight.shape));
    auto dfl = m_b.floats("model.22.dfl.conv.weight", dflWeight.shape, dflWeight.values);
    auto boxShape = m_b.ints("const_box_bins_shape", {4}, {0, 4, r, -1});
    auto distShape = m_b.ints("const_box_shape", {3}, {0, 4, -1});
    auto clsShape = m_b.ints("const_cls_shape", {3}, {0, m_g.nc, -1});
    auto halves = m_b.ints("const_box_split", {2}, {2, 2});
    std::vector<std::string> boxes, scores;
    for (size_t i = 0; i < xs.size(); ++i) {
      const std::string lvl = "model.22." + std::to_string(i);
      const std::string b = "model.22.cv2." + std::to_string(i);
      const std::string c = "model.22.cv3." + std::to_string(i);
      auto box = conv(b + ".2", conv(b + ".1", conv(b + ".0", xs[i])), 1, false);
      auto cls = conv(c + ".2", conv(c + ".1", conv(c + ".0", xs[i])), 1, false);
      const Array& clsW = weight(c + ".2.weight");
      if (clsW.shape[0] != m_g.nc)
        throw BuildError(c + ".2.weight: " + std::to_string(clsW.shape[0]) +
                         " class outputs, but nc is " + std::to_string(m_g.nc));
      if (weight(b + ".2.weight").shape[0] != 4 * r)
        throw BuildError(b + ".2.weight: expected " + std::to_string(4 * r) + " box outputs");

      // DFL: (B, 4R, H, W) -> (B, 4, R, HW) -> (B, R, 4, HW), softmax over the bins, the
      // expectation as a 1x1 convolution with weights 0..R-1 -> (B, 4, HW).
      auto bins = m_b.op("Reshape", {box, boxShape}, "/" + lvl + "/dfl/Reshape");
      auto* tr = m_b.node("Transpose", {bins}, "/" + lvl + "/dfl/Transpose");
      Builder::attr(tr, "perm", std::vector<int64_t>{0, 2, 1, 3});
      auto* sm = m_b.node("Softmax", {tr->output(0)}, "/" + lvl + "/dfl/Softmax");
      Builder::attr(sm, "axis", int64_t{1});
      auto* ex = m_b.node("Conv", {sm->output(0), dfl}, "/" + lvl + "/dfl/Conv");
      Builder::attr(ex, "kernel_shape", std::vector<int64_t>{1, 1});
      auto dist = m_b.op("Reshape", {ex->output(0), distShape}, "/" + lvl + "/dfl/Reshape_1");

      auto anchors = anchorPoints(box, lvl);  // (2, HW)
      auto* sp = m_b.node("Split", {dist, halves}, "/" + lvl + "/Split", 2);
      Builder::attr(sp, "axis", int64_t{1});
      auto x1y1 = m_b.op("Sub", {anchors, sp->output(0)}, "/" + lvl + "/Sub");
      auto x2y2 = m_b.op("Add", {anchors, sp->output(1)}, "/" + lvl + "/Add");
      auto centre = m_b.op("Div", {m_b.op("Add", {x1y1, x2y2}, "/" + lvl + "/Add_1"), m_two},
                           "/" + lvl + "/Div");
      auto size = m_b.op("Sub", {x2y2, x1y1}, "/" + lvl + "/Sub_1");
      auto stride = m_b.floats("const_stride_" + std::to_string(i), {},
                               {static_cast<float>(m_g.strides.at(i))});
      boxes.push_back(
          m_b.op("Mul", {concat({centre, size}, lvl + "/box"), stride}, "/" + lvl + "/Mul"));
      auto logits = m_b.op("Reshape", {cls, clsShape}, "/" + lvl + "/cls/Reshape");
      scores.push_back(m_b.op("Sigmoid", {logits}, "/" + lvl + "/cls/Sigmoid"));
    }
    auto allBoxes = concat(boxes, "model.22/boxes", 2);
    auto allScores = concat(scores, "model.22/scores", 2);
    return concat({allBoxes, allScores}, "model.22", 1);
  }

  /// Cell centres of a level's feature map (B, C, H, W) as a (2, H*W) tensor in grid units: row
  /// 0 the x (column + 0.5), row 1 the y (row + 0.5), in the order of a flattened H x W grid.
  std::string anchorPoints(const std::string& feature, const std::string& lvl) {
    const std::string p = "/" + lvl + "/anchors/";
    auto shape = m_b.op("Shape", {feature}, p + "Shape");
    auto dim = [&](int64_t index, const std::string& what) {
      auto* g = m_b.node("Gather", {shape, m_b.ints("const_" + lvl + "_dim_" + what, {}, {index})},
                         p + "Gather_" + what);
      Builder::attr(g, "axis", int64_t{0});
      return g->output(0);
    };
    auto h = dim(2, "h"), w = dim(3, "w");
    auto centres = [&](const std::string& n, const std::string& what) {
      auto range = m_b.op("Range", {m_zero, n, m_one}, p + "Range_" + what);
      auto* cast = m_b.node("Cast", {range}, p + "Cast_" + what);
      Builder::attr(cast, "to", static_cast<int64_t>(m_b.floatType()));
      return m_b.op("Add", {cast->output(0), m_halfCell}, p + "Add_" + what);
    };
    auto grid = concat({m_b.op("Unsqueeze", {h, m_axis0}, p + "Unsqueeze_h"),
                        m_b.op("Unsqueeze", {w, m_axis0}, p + "Unsqueeze_w")},
                       lvl + "/anchors/grid", 0);
    auto xs =
        m_b.op("Expand", {m_b.op("Unsqueeze", {centres(w, "x"), m_axis0}, p + "Unsqueeze_x"), grid},
               p + "Expand_x");
    auto ys =
        m_b.op("Expand", {m_b.op("Unsqueeze", {centres(h, "y"), m_axis1}, p + "Unsqueeze_y"), grid},
               p + "Expand_y");
    return concat({m_b.op("Reshape", {xs, m_rowShape}, p + "Reshape_x"),
                   m_b.op("Reshape", {ys, m_rowShape}, p + "Reshape_y")},
                  lvl + "/anchors", 0);
  }

  const DetectorGraph& m_g;
  Builder m_b;
  std::string m_zero, m_one, m_axis0, m_axis1, m_halfCell, m_two, m_rowShape;
  std::string m_scales;
  bool m_scalesNeeded = false;
};

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

/// The options a graph cannot be built from: opset, classes, DFL bins, levels, fixed sizes.
Status checkGraphOptions(const DetectorGraph& g) {
  if (g.opset < kMinOpset || g.opset > kMaxOpset)
    return Error{"", 0, "opset",
                 "must be " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                     ", got " + std::to_string(g.opset)};
  if (g.nc < 1) return Error{"", 0, "nc", "must be at least 1"};
  if (g.regMax < 2) return Error{"", 0, "reg_max", "must be at least 2"};
  if (g.strides.size() != 3) return Error{"", 0, "strides", "expected three detection levels"};
  const int64_t maxStride = g.strides.back();
  if (!g.dynamic) {
    if (g.batch < 1) return Error{"", 0, "batch", "must be at least 1"};
    for (auto [v, key] : {std::pair{g.height, "imgsz"}, std::pair{g.width, "imgsz"}})
      if (v < maxStride || v % maxStride != 0)
        return Error{"", 0, key,
                     "must be a positive multiple of the model's stride " +
                         std::to_string(maxStride) + ", got " + std::to_string(v)};
  }
  return Ok{};
}

/// The network's nodes and initializers into `graph`, its last output renamed "output0";
/// counts the parameters into `report`.
Status buildDetector(const DetectorGraph& g, proto::GraphProto* graph, GraphReport& report) {
  try {
    DetectorBuilder builder(g, graph);
    const std::string result = builder.build("images");
    if (builder.scalesNeeded()) {
      auto* t = graph->add_initializer();
      t->set_name("const_upsample_scales");
      t->add_dims(4);
      t->set_data_type(proto::TensorProto_DataType_FLOAT);
      for (float v : {1.0f, 1.0f, 2.0f, 2.0f}) t->add_float_data(v);
    }
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
void addUltralyticsMetadata(proto::ModelProto& model, const DetectorGraph& g, int64_t maxStride) {
  auto meta = [&](const std::string& key, const std::string& value) {
    auto* p = model.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  };
  std::string names = "{";
  for (int i = 0; i < g.nc; ++i) {
    const std::string name = static_cast<size_t>(i) < g.names.size()
                                 ? g.names[static_cast<size_t>(i)]
                                 : std::to_string(i);
    names += (i ? ", " : "") + std::to_string(i) + ": " + pyRepr(name);
  }
  names += "}";
  meta("description", "Stave YOLOv8 detector");
  meta("author", "Stave");
  meta("date", today());
  meta("version", STAVE_VERSION);
  meta("stride", std::to_string(maxStride));
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
  const int64_t maxStride = g.strides.back();

  proto::ModelProto model;
  model.set_ir_version(8);  // what ONNX 1.12 writes for opsets up to 17
  model.set_producer_name("Stave");
  model.set_producer_version(STAVE_VERSION);
  model.set_model_version(1);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opset);
  auto* graph = model.mutable_graph();
  graph->set_name("stave_yolov8_detect");

  const int elem = g.half ? proto::TensorProto_DataType_FLOAT16 : proto::TensorProto_DataType_FLOAT;
  std::vector<std::pair<int64_t, std::string>> in, out;
  int64_t anchors = 0;
  for (auto s : g.strides) anchors += (g.height / s) * (g.width / s);
  if (g.dynamic) {
    in = {{0, "batch"}, {3, ""}, {0, "height"}, {0, "width"}};
    out = {{0, "batch"}, {4 + g.nc, ""}, {0, "anchors"}};
  } else {
    in = {{g.batch, ""}, {3, ""}, {g.height, ""}, {g.width, ""}};
    out = {{g.batch, ""}, {4 + g.nc, ""}, {anchors, ""}};
  }
  setTensorType(graph->add_input(), "images", elem, in);

  GraphReport report;
  if (auto st = buildDetector(g, graph, report); !st) return st.errors();
  setTensorType(graph->add_output(), "output0", elem, out);
  addUltralyticsMetadata(model, g, maxStride);

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
