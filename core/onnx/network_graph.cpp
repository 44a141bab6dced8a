// The detector's ONNX nodes, layer by layer as the Architecture lists them (the order YoloImpl's
// forward runs them in), for every module the architecture description resolves: Conv (grouped,
// with or without SiLU), C2f, C3k2 (with Bottleneck or C3k blocks), SPPF, C2PSA (PSABlocks with
// multi-head Attention), nearest upsampling, Concat and the Detect head (legacy class branch or
// YOLO11's depthwise-separable one) with the box decoding of Ultralytics' export. Channels are
// followed through the graph, so a weight that does not fit the architecture is named here, not
// left to the checker.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "core/onnx/graph_builder.h"

namespace stave::onnx {

namespace {

/// A value of the graph and its channel count (dim 1).
struct Value {
  std::string name;
  int64_t channels = 0;
};

/// int(c * e) as Ultralytics computes hidden channels.
int64_t hidden(int64_t c, double e) {
  return static_cast<int64_t>(static_cast<double>(c) * e);
}

class NetworkBuilder {
 public:
  NetworkBuilder(const DetectorGraph& g, Builder& b) : m_g(g), m_a(g.architecture), m_b(b) {
    m_zero = m_b.ints("const_zero", {}, {0});
    m_one = m_b.ints("const_one", {}, {1});
    m_axis0 = m_b.ints("const_axes_0", {1}, {0});
    m_axis1 = m_b.ints("const_axes_1", {1}, {1});
    m_halfCell = m_b.floats("const_cell_centre", {}, {0.5f});
    m_two = m_b.floats("const_two", {}, {2.0f});
    m_rowShape = m_b.ints("const_row_shape", {2}, {1, -1});
  }

  /// images -> output0: every layer in order, each reading the outputs of its `from` layers.
  std::string build(const std::string& images) {
    std::vector<Value> outputs;
    outputs.reserve(m_a.layers.size());
    for (const auto& l : m_a.layers) {
      std::vector<Value> in;
      for (int f : l.from) {
        if (f >= static_cast<int>(outputs.size()))
          throw BuildError("layer " + std::to_string(l.index) + " reads layer " +
                           std::to_string(f) + ", which is not before it");
        in.push_back(f < 0 ? Value{images, 3} : outputs[static_cast<size_t>(f)]);
      }
      if (l.module == "Detect") return detect(l, in);
      outputs.push_back(layer(l, in));
    }
    throw BuildError("the architecture has no Detect layer");
  }

 private:
  Value layer(const model::LayerSpec& l, const std::vector<Value>& in) {
    const std::string name = "model." + std::to_string(l.index);
    if (l.module == "Conv") return conv(name, in[0], l.kernel, l.stride, l.groups, l.act, l.c2);
    if (l.module == "C2f" || l.module == "C3k2") return c2f(name, l, in[0]);
    if (l.module == "SPPF") return sppf(name, l, in[0]);
    if (l.module == "C2PSA") return c2psa(name, l, in[0]);
    if (l.module == "nn.Upsample") return upsample(name, in[0], l.stride);
    if (l.module == "Concat") return concat(in, name);
    throw BuildError("layer " + std::to_string(l.index) + ": module '" + l.module +
                     "' has no ONNX form in Stave");
  }

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

  /// Convolution k x k with "same" padding, `groups` groups (the weight (out, in / groups, k,
  /// k)), its folded BatchNorm as bias, then SiLU unless `act` is false. `out` > 0: the output
  /// channels the architecture expects.
  Value conv(const std::string& module, const Value& x, int64_t k, int64_t stride = 1,
             int64_t groups = 1, bool act = true, int64_t out = 0) {
    const Array& w = weight(module + ".weight");
    if (w.shape.size() != 4 || w.shape[2] != w.shape[3])
      throw BuildError(module + ".weight: expected (out, in, k, k), got " + shapeText(w.shape));
    if (w.shape[2] != k)
      throw BuildError(module + ".weight: expected a " + std::to_string(k) + "x" +
                       std::to_string(k) + " kernel, got " + shapeText(w.shape));
    if (groups < 1 || x.channels % groups != 0 || w.shape[1] * groups != x.channels ||
        w.shape[0] % groups != 0)
      throw BuildError(module + ".weight: expected (out, " +
                       std::to_string(groups > 0 ? x.channels / groups : 0) + ", " +
                       std::to_string(k) + ", " + std::to_string(k) + ") for " +
                       std::to_string(x.channels) + " input channels in " + std::to_string(groups) +
                       " group(s), got " + shapeText(w.shape));
    if (out > 0 && w.shape[0] != out)
      throw BuildError(module + ".weight: expected " + std::to_string(out) +
                       " output channels, got " + shapeText(w.shape));
    std::vector<std::string> inputs{x.name, m_b.floats(module + ".weight", w.shape, w.values)};
    if (has(module + ".bias")) {
      const Array& bias = weight(module + ".bias");
      if (bias.shape != std::vector<int64_t>{w.shape[0]})
        throw BuildError(module + ".bias: expected (" + std::to_string(w.shape[0]) + "), got " +
                         shapeText(bias.shape));
      inputs.push_back(m_b.floats(module + ".bias", bias.shape, bias.values));
    }
    auto* n = m_b.node("Conv", inputs, "/" + module + "/Conv");
    Builder::attr(n, "kernel_shape", std::vector<int64_t>{k, k});
    Builder::attr(n, "strides", std::vector<int64_t>{stride, stride});
    Builder::attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    Builder::attr(n, "dilations", std::vector<int64_t>{1, 1});
    Builder::attr(n, "group", groups);
    Value y{n->output(0), w.shape[0]};
    if (!act) return y;
    // SiLU as x * sigmoid(x), as every runtime has both.
    auto s = m_b.op("Sigmoid", {y.name}, "/" + module + "/act/Sigmoid");
    return {m_b.op("Mul", {y.name, s}, "/" + module + "/act/Mul"), y.channels};
  }

  Value concat(const std::vector<Value>& xs, const std::string& module, int64_t axis = 1) {
    std::vector<std::string> names;
    int64_t channels = 0;
    for (const auto& x : xs) {
      names.push_back(x.name);
      channels += x.channels;
    }
    auto* n = m_b.node("Concat", names, "/" + module + "/Concat");
    Builder::attr(n, "axis", axis);
    return {n->output(0), channels};
  }

  Value add(const Value& a, const Value& b, const std::string& name) {
    return {m_b.op("Add", {a.name, b.name}, name), a.channels};
  }

  /// x split along channels into parts of the given sizes.
  std::vector<Value> split(const Value& x, const std::vector<int64_t>& sizes,
                           const std::string& module) {
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != x.channels)
      throw BuildError(module + ": cannot split " + std::to_string(x.channels) + " channels into " +
                       shapeText(sizes));
    auto* n =
        m_b.node("Split", {x.name, m_b.ints(module + ".split", {int64_t(sizes.size())}, sizes)},
                 "/" + module + "/Split", static_cast<int>(sizes.size()));
    Builder::attr(n, "axis", int64_t{1});
    std::vector<Value> parts;
    for (size_t i = 0; i < sizes.size(); ++i) parts.push_back({n->output(int(i)), sizes[i]});
    return parts;
  }

  /// Ultralytics' Bottleneck(c1, c2, shortcut, g, k=(k1, k2), e): cv1 (k1), cv2 (k2, g groups),
  /// plus the input when shortcut and c1 == c2.
  Value bottleneck(const std::string& m, const Value& x, int64_t c2, bool shortcut, int64_t g,
                   int64_t k1, int64_t k2, double e) {
    auto h =
        conv(m + ".cv2", conv(m + ".cv1", x, k1, 1, 1, true, hidden(c2, e)), k2, 1, g, true, c2);
    return shortcut && x.channels == c2 ? add(x, h, "/" + m + "/Add") : h;
  }

  /// Ultralytics' C3k(c1, c2, n=2, shortcut, g, e=0.5, k=3): cv3(cat(m(cv1(x)), cv2(x))).
  Value c3k(const std::string& m, const Value& x, int64_t c2, bool shortcut, int64_t g) {
    const int64_t c = hidden(c2, 0.5);
    auto a = conv(m + ".cv1", x, 1, 1, 1, true, c);
    for (int j = 0; j < 2; ++j)
      a = bottleneck(m + ".m." + std::to_string(j), a, c, shortcut, g, 3, 3, 1.0);
    auto b = conv(m + ".cv2", x, 1, 1, 1, true, c);
    return conv(m + ".cv3", concat({a, b}, m), 1, 1, 1, true, c2);
  }

  /// C2f and C3k2 (a C2f whose blocks differ): cv1, split in two halves of int(c2 * e), each
  /// block on the last output, all concatenated, cv2. C2f's blocks are Bottlenecks with e = 1;
  /// C3k2's are Bottlenecks with e = 0.5, or C3k blocks.
  Value c2f(const std::string& module, const model::LayerSpec& l, const Value& x) {
    const int64_t c = hidden(l.c2, l.expansion);
    auto ys = split(conv(module + ".cv1", x, 1, 1, 1, true, 2 * c), {c, c}, module);
    for (int i = 0; i < l.repeats; ++i) {
      const std::string m = module + ".m." + std::to_string(i);
      if (l.module == "C2f")
        ys.push_back(bottleneck(m, ys.back(), c, l.shortcut, l.groups, 3, 3, 1.0));
      else if (l.c3k)
        ys.push_back(c3k(m, ys.back(), c, l.shortcut, l.groups));
      else
        ys.push_back(bottleneck(m, ys.back(), c, l.shortcut, l.groups, 3, 3, 0.5));
    }
    return conv(module + ".cv2", concat(ys, module), 1, 1, 1, true, l.c2);
  }

  /// Spatial pyramid pooling (fast): cv1, three chained k x k max pools, concatenated, cv2.
  Value sppf(const std::string& module, const model::LayerSpec& l, const Value& x) {
    std::vector<Value> ys{conv(module + ".cv1", x, 1, 1, 1, true, hidden(l.c1, 0.5))};
    const int64_t k = l.kernel;
    for (int i = 0; i < 3; ++i) {
      auto* n =
          m_b.node("MaxPool", {ys.back().name}, "/" + module + "/m/MaxPool_" + std::to_string(i));
      Builder::attr(n, "kernel_shape", std::vector<int64_t>{k, k});
      Builder::attr(n, "strides", std::vector<int64_t>{1, 1});
      Builder::attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
      ys.push_back({n->output(0), ys.back().channels});
    }
    return conv(module + ".cv2", concat(ys, module), 1, 1, 1, true, l.c2);
  }

  /// C2PSA: cv1, split in halves of int(c1 * e), PSABlocks in sequence on the second, the
  /// halves concatenated, cv2.
  Value c2psa(const std::string& module, const model::LayerSpec& l, const Value& x) {
    const int64_t c = hidden(l.c1, l.expansion);
    auto ab = split(conv(module + ".cv1", x, 1, 1, 1, true, 2 * c), {c, c}, module);
    Value b = ab[1];
    for (int i = 0; i < l.repeats; ++i) b = psaBlock(module + ".m." + std::to_string(i), b);
    return conv(module + ".cv2", concat({ab[0], b}, module), 1, 1, 1, true, l.c2);
  }

  /// PSABlock(c, attn_ratio 0.5, heads max(c / 64, 1), shortcut): x + attn(x), then that plus
  /// ffn (Conv c -> 2c, Conv 2c -> c without SiLU).
  Value psaBlock(const std::string& m, const Value& x) {
    const int64_t c = x.channels;
    auto y = add(x, attention(m + ".attn", x, std::max<int64_t>(c / 64, 1)), "/" + m + "/Add");
    auto f = conv(m + ".ffn.1", conv(m + ".ffn.0", y, 1, 1, 1, true, 2 * c), 1, 1, 1, false, c);
    return add(y, f, "/" + m + "/Add_1");
  }

  /// Multi-head self-attention over the H*W positions (Ultralytics' Attention, attn_ratio 0.5):
  /// qkv (1x1, no SiLU) viewed as (B, heads, 2 * key_dim + head_dim, N), split into q, k, v;
  /// softmax((q * key_dim^-0.5)^T k) over the last axis; v attn^T back to (B, C, H, W) plus pe
  /// (3x3 depthwise, no SiLU) of v as (B, C, H, W); proj (1x1, no SiLU). B, H and W come from
  /// the input's Shape at run time, so dynamic sizes work.
  Value attention(const std::string& m, const Value& x, int64_t heads) {
    const int64_t dim = x.channels;
    if (dim % heads != 0)
      throw BuildError(m + ": " + std::to_string(dim) + " channels do not divide into " +
                       std::to_string(heads) + " heads");
    const int64_t headDim = dim / heads;
    const int64_t keyDim = hidden(headDim, 0.5);
    if (keyDim < 1)
      throw BuildError(m + ": key dimension 0 for " + std::to_string(dim) + " channels");
    const std::string p = "/" + m + "/";
    auto qkv = conv(m + ".qkv", x, 1, 1, 1, false, dim + 2 * keyDim * heads);
    // (B, h, W', H', ...) -> (B, heads, 2 kd + hd, N): 0 copies B, -1 takes H * W.
    auto viewed = m_b.op("Reshape",
                         {qkv.name, m_b.ints("const_" + m + "_qkv_shape", {4},
                                             {0, heads, 2 * keyDim + headDim, -1})},
                         p + "Reshape");
    auto* sp = m_b.node(
        "Split", {viewed, m_b.ints("const_" + m + "_qkv_split", {3}, {keyDim, keyDim, headDim})},
        p + "Split", 3);
    Builder::attr(sp, "axis", int64_t{2});
    const std::string q = sp->output(0), k = sp->output(1), v = sp->output(2);
    const float scale = static_cast<float>(std::pow(static_cast<double>(keyDim), -0.5));
    auto qs = m_b.op("Mul", {q, m_b.floats("const_" + m + "_scale", {}, {scale})}, p + "Mul");
    auto* qt = m_b.node("Transpose", {qs}, p + "Transpose");
    Builder::attr(qt, "perm", std::vector<int64_t>{0, 1, 3, 2});
    auto scores = m_b.op("MatMul", {qt->output(0), k}, p + "MatMul");  // (B, heads, N, N)
    auto* sm = m_b.node("Softmax", {scores}, p + "Softmax");
    Builder::attr(sm, "axis", int64_t{-1});
    auto* at = m_b.node("Transpose", {sm->output(0)}, p + "Transpose_1");
    Builder::attr(at, "perm", std::vector<int64_t>{0, 1, 3, 2});
    auto weighted = m_b.op("MatMul", {v, at->output(0)}, p + "MatMul_1");  // (B, heads, hd, N)
    // Back to the input's (B, C, H, W): heads * head_dim = C.
    auto shape = m_b.op("Shape", {x.name}, p + "Shape");
    Value spatial{m_b.op("Reshape", {weighted, shape}, p + "Reshape_1"), dim};
    Value vMap{m_b.op("Reshape", {v, shape}, p + "Reshape_2"), dim};
    auto pe = conv(m + ".pe", vMap, 3, 1, dim, false, dim);
    return conv(m + ".proj", add(spatial, pe, p + "Add"), 1, 1, 1, false, dim);
  }

  /// Nearest-neighbour upsampling by an integer factor (torch's "nearest": source index =
  /// floor(dst / factor)).
  Value upsample(const std::string& module, const Value& x, int factor) {
    const std::string scales = factor == 2 ? std::string("const_upsample_scales")
                                           : "const_upsample_scales_" + std::to_string(factor);
    if (!m_upsampleScales.count(factor)) {
      // Always float32 (Resize requires it), whatever the graph's type.
      const float f = static_cast<float>(factor);
      m_b.floats32(scales, {4}, {1.0f, 1.0f, f, f});
      m_upsampleScales.insert(factor);
    }
    auto* t = m_b.node("Resize", {x.name, "", scales}, "/" + module + "/Resize");
    Builder::attr(t, "mode", std::string("nearest"));
    Builder::attr(t, "coordinate_transformation_mode", std::string("asymmetric"));
    Builder::attr(t, "nearest_mode", std::string("floor"));
    return {t->output(0), x.channels};
  }

  /// The class branch of one level: YOLOv8's Conv 3x3, Conv 3x3, Conv2d 1x1, or YOLO11's
  /// (DWConv 3x3, Conv 1x1) twice, Conv2d 1x1.
  Value classBranch(const std::string& c, const Value& x) {
    if (m_a.legacyHead)
      return conv(c + ".2", conv(c + ".1", conv(c + ".0", x, 3), 3), 1, 1, 1, false);
    auto y = conv(c + ".0.1", conv(c + ".0.0", x, 3, 1, x.channels), 1);
    y = conv(c + ".1.1", conv(c + ".1.0", y, 3, 1, y.channels), 1);
    return conv(c + ".2", y, 1, 1, 1, false);
  }

  /// The head: per level a box branch and a class branch; boxes decoded (DFL expectation,
  /// anchors from the level's own size, so any input size works) to centre x/y, width, height
  /// in input pixels; classes through the sigmoid; levels concatenated.
  std::string detect(const model::LayerSpec& l, const std::vector<Value>& xs) {
    const std::string head = "model." + std::to_string(l.index);
    const int64_t r = m_a.regMax;
    const int64_t nc = m_a.nc;
    if (xs.size() != m_a.strides.size())
      throw BuildError(head + ": " + std::to_string(xs.size()) + " inputs but " +
                       std::to_string(m_a.strides.size()) + " strides");
    const Array& dflWeight = weight(head + ".dfl.conv.weight");
    if (dflWeight.shape != std::vector<int64_t>{1, r, 1, 1})
      throw BuildError(head + ".dfl.conv.weight: expected " + shapeText({1, r, 1, 1}) + ", got " +
                       shapeText(dflWeight.shape));
    auto dfl = m_b.floats(head + ".dfl.conv.weight", dflWeight.shape, dflWeight.values);
    auto boxShape = m_b.ints("const_box_bins_shape", {4}, {0, 4, r, -1});
    auto distShape = m_b.ints("const_box_shape", {3}, {0, 4, -1});
    auto clsShape = m_b.ints("const_cls_shape", {3}, {0, nc, -1});
    auto halves = m_b.ints("const_box_split", {2}, {2, 2});
    std::vector<Value> boxes, scores;
    for (size_t i = 0; i < xs.size(); ++i) {
      const std::string lvl = head + "." + std::to_string(i);
      const std::string b = head + ".cv2." + std::to_string(i);
      const std::string c = head + ".cv3." + std::to_string(i);
      auto box = conv(b + ".2", conv(b + ".1", conv(b + ".0", xs[i], 3), 3), 1, 1, 1, false);
      auto cls = classBranch(c, xs[i]);
      if (cls.channels != nc)
        throw BuildError(c + ".2.weight: " + std::to_string(cls.channels) +
                         " class outputs, but nc is " + std::to_string(nc));
      if (box.channels != 4 * r)
        throw BuildError(b + ".2.weight: expected " + std::to_string(4 * r) + " box outputs");

      // DFL: (B, 4R, H, W) -> (B, 4, R, HW) -> (B, R, 4, HW), softmax over the bins, the
      // expectation as a 1x1 convolution with weights 0..R-1 -> (B, 4, HW).
      auto bins = m_b.op("Reshape", {box.name, boxShape}, "/" + lvl + "/dfl/Reshape");
      auto* tr = m_b.node("Transpose", {bins}, "/" + lvl + "/dfl/Transpose");
      Builder::attr(tr, "perm", std::vector<int64_t>{0, 2, 1, 3});
      auto* sm = m_b.node("Softmax", {tr->output(0)}, "/" + lvl + "/dfl/Softmax");
      Builder::attr(sm, "axis", int64_t{1});
      auto* ex = m_b.node("Conv", {sm->output(0), dfl}, "/" + lvl + "/dfl/Conv");
      Builder::attr(ex, "kernel_shape", std::vector<int64_t>{1, 1});
      auto dist = m_b.op("Reshape", {ex->output(0), distShape}, "/" + lvl + "/dfl/Reshape_1");

      auto anchors = anchorPoints(box.name, lvl);  // (2, HW)
      auto* sp = m_b.node("Split", {dist, halves}, "/" + lvl + "/Split", 2);
      Builder::attr(sp, "axis", int64_t{1});
      auto x1y1 = m_b.op("Sub", {anchors, sp->output(0)}, "/" + lvl + "/Sub");
      auto x2y2 = m_b.op("Add", {anchors, sp->output(1)}, "/" + lvl + "/Add");
      auto centre = m_b.op("Div", {m_b.op("Add", {x1y1, x2y2}, "/" + lvl + "/Add_1"), m_two},
                           "/" + lvl + "/Div");
      auto size = m_b.op("Sub", {x2y2, x1y1}, "/" + lvl + "/Sub_1");
      auto stride =
          m_b.floats("const_stride_" + std::to_string(i), {}, {static_cast<float>(m_a.strides[i])});
      auto xywh = concat({{centre, 2}, {size, 2}}, lvl + "/box");
      boxes.push_back({m_b.op("Mul", {xywh.name, stride}, "/" + lvl + "/Mul"), 4});
      auto logits = m_b.op("Reshape", {cls.name, clsShape}, "/" + lvl + "/cls/Reshape");
      scores.push_back({m_b.op("Sigmoid", {logits}, "/" + lvl + "/cls/Sigmoid"), nc});
    }
    auto allBoxes = concat(boxes, head + "/boxes", 2);
    auto allScores = concat(scores, head + "/scores", 2);
    return concat({{allBoxes.name, 4}, {allScores.name, nc}}, head, 1).name;
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
    auto grid = concat({{m_b.op("Unsqueeze", {h, m_axis0}, p + "Unsqueeze_h"), 1},
                        {m_b.op("Unsqueeze", {w, m_axis0}, p + "Unsqueeze_w"), 1}},
                       lvl + "/anchors/grid", 0)
                    .name;
    auto xs =
        m_b.op("Expand", {m_b.op("Unsqueeze", {centres(w, "x"), m_axis0}, p + "Unsqueeze_x"), grid},
               p + "Expand_x");
    auto ys =
        m_b.op("Expand", {m_b.op("Unsqueeze", {centres(h, "y"), m_axis1}, p + "Unsqueeze_y"), grid},
               p + "Expand_y");
    return concat({{m_b.op("Reshape", {xs, m_rowShape}, p + "Reshape_x"), 1},
                   {m_b.op("Reshape", {ys, m_rowShape}, p + "Reshape_y"), 1}},
                  lvl + "/anchors", 0)
        .name;
  }

  const DetectorGraph& m_g;
  const model::Architecture& m_a;
  Builder& m_b;
  std::string m_zero, m_one, m_axis0, m_axis1, m_halfCell, m_two, m_rowShape;
  std::set<int> m_upsampleScales;
};

}  // namespace

std::string buildNetwork(const DetectorGraph& g, Builder& b, const std::string& images) {
  return NetworkBuilder(g, b).build(images);
}

}  // namespace stave::onnx
