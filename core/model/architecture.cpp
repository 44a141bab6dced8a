#include "core/model/architecture.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace stave::model {

namespace {

using json = nlohmann::json;

// The published descriptions, as ultralytics/cfg/models/v8/yolov8.yaml and 11/yolo11.yaml read
// (Ultralytics 8.4). YAML loads the bare word None as the string "None", so do checkpoints; the
// resolver treats both it and null as None.
constexpr const char* kYolov8 = R"({
  "nc": 80,
  "scales": {"n": [0.33, 0.25, 1024], "s": [0.33, 0.50, 1024], "m": [0.67, 0.75, 768],
             "l": [1.00, 1.00, 512], "x": [1.00, 1.25, 512]},
  "backbone": [
    [-1, 1, "Conv", [64, 3, 2]],
    [-1, 1, "Conv", [128, 3, 2]],
    [-1, 3, "C2f", [128, true]],
    [-1, 1, "Conv", [256, 3, 2]],
    [-1, 6, "C2f", [256, true]],
    [-1, 1, "Conv", [512, 3, 2]],
    [-1, 6, "C2f", [512, true]],
    [-1, 1, "Conv", [1024, 3, 2]],
    [-1, 3, "C2f", [1024, true]],
    [-1, 1, "SPPF", [1024, 5]]],
  "head": [
    [-1, 1, "nn.Upsample", ["None", 2, "nearest"]],
    [[-1, 6], 1, "Concat", [1]],
    [-1, 3, "C2f", [512]],
    [-1, 1, "nn.Upsample", ["None", 2, "nearest"]],
    [[-1, 4], 1, "Concat", [1]],
    [-1, 3, "C2f", [256]],
    [-1, 1, "Conv", [256, 3, 2]],
    [[-1, 12], 1, "Concat", [1]],
    [-1, 3, "C2f", [512]],
    [-1, 1, "Conv", [512, 3, 2]],
    [[-1, 9], 1, "Concat", [1]],
    [-1, 3, "C2f", [1024]],
    [[15, 18, 21], 1, "Detect", ["nc"]]]
})";

constexpr const char* kYolo11 = R"({
  "nc": 80,
  "scales": {"n": [0.50, 0.25, 1024], "s": [0.50, 0.50, 1024], "m": [0.50, 1.00, 512],
             "l": [1.00, 1.00, 512], "x": [1.00, 1.50, 512]},
  "backbone": [
    [-1, 1, "Conv", [64, 3, 2]],
    [-1, 1, "Conv", [128, 3, 2]],
    [-1, 2, "C3k2", [256, false, 0.25]],
    [-1, 1, "Conv", [256, 3, 2]],
    [-1, 2, "C3k2", [512, false, 0.25]],
    [-1, 1, "Conv", [512, 3, 2]],
    [-1, 2, "C3k2", [512, true]],
    [-1, 1, "Conv", [1024, 3, 2]],
    [-1, 2, "C3k2", [1024, true]],
    [-1, 1, "SPPF", [1024, 5]],
    [-1, 2, "C2PSA", [1024]]],
  "head": [
    [-1, 1, "nn.Upsample", ["None", 2, "nearest"]],
    [[-1, 6], 1, "Concat", [1]],
    [-1, 2, "C3k2", [512, false]],
    [-1, 1, "nn.Upsample", ["None", 2, "nearest"]],
    [[-1, 4], 1, "Concat", [1]],
    [-1, 2, "C3k2", [256, false]],
    [-1, 1, "Conv", [256, 3, 2]],
    [[-1, 13], 1, "Concat", [1]],
    [-1, 2, "C3k2", [512, false]],
    [-1, 1, "Conv", [512, 3, 2]],
    [[-1, 10], 1, "Concat", [1]],
    [-1, 2, "C3k2", [1024, true]],
    [[16, 19, 22], 1, "Detect", ["nc"]]]
})";

const char* const kBuilt = "Conv, C2f, C3k2, SPPF, C2PSA, nn.Upsample, Concat, Detect";

bool isNone(const json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>() == "None");
}

// Python's truth value of a yaml entry (bools, numbers, the strings YAML left as words).
bool truthy(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    return !(s.empty() || s == "False" || s == "false" || s == "None" || s == "0");
  }
  if (v.is_array() || v.is_object()) return !v.empty();
  return false;
}

// parse_model's treatment of string arguments: a name it has in scope (nc) or a Python literal.
json resolveArg(const json& a, int nc) {
  if (!a.is_string()) return a;
  const std::string s = a.get<std::string>();
  if (s == "nc") return nc;
  if (s == "None") return nullptr;
  if (s == "True") return true;
  if (s == "False") return false;
  try {
    size_t used = 0;
    const double d = std::stod(s, &used);
    if (used == s.size()) {
      if (d == std::floor(d) && s.find_first_of(".eE") == std::string::npos)
        return static_cast<int64_t>(d);
      return d;
    }
  } catch (const std::exception&) {
  }
  return a;
}

// Python's round() (half to even), as parse_model rounds n * depth.
int64_t pyRound(double x) {
  return static_cast<int64_t>(std::nearbyint(x));
}

class Parser {
 public:
  Parser(const json& yaml, int ncOverride, std::string what)
      : m_yaml(yaml), m_ncOverride(ncOverride), m_what(std::move(what)) {}

  Result<Architecture> run();

 private:
  Error fail(const std::string& key, const std::string& message) const {
    return Error{m_what, 0, key, message};
  }
  Error layerFail(int i, const std::string& message) const {
    return fail("", "layer " + std::to_string(i) + ": " + message);
  }
  bool argInt(const json& args, size_t k, int64_t fallback, int64_t* out) const {
    if (args.size() <= k || isNone(args[k])) {
      *out = fallback;
      return true;
    }
    if (!args[k].is_number_integer()) return false;
    *out = args[k].get<int64_t>();
    return true;
  }
  bool argBool(const json& args, size_t k, bool fallback, bool* out) const {
    if (args.size() <= k || isNone(args[k])) {
      *out = fallback;
      return true;
    }
    if (!args[k].is_boolean() && !args[k].is_number()) return false;
    *out = truthy(args[k]);
    return true;
  }
  bool argDouble(const json& args, size_t k, double fallback, double* out) const {
    if (args.size() <= k || isNone(args[k])) {
      *out = fallback;
      return true;
    }
    if (!args[k].is_number()) return false;
    *out = args[k].get<double>();
    return true;
  }
  int64_t width(int64_t c2) const {
    const double capped = m_maxChannels > 0 ? std::min<double>(c2, m_maxChannels) : c2;
    return makeDivisible(capped * m_width, 8);
  }

  const json& m_yaml;
  int m_ncOverride;
  std::string m_what;
  double m_width = 1.0;
  int64_t m_maxChannels = 0;
};

std::string argText(const json& args) {
  return args.dump();
}

Result<Architecture> Parser::run() {
  if (!m_yaml.is_object()) return fail("", "the model description is not a dict");
  for (const char* key : {"backbone", "head"})
    if (!m_yaml.contains(key) || !m_yaml[key].is_array())
      return fail(key, std::string("missing or not a list (the model description needs ") +
                           "backbone and head lists)");
  Architecture a;
  // Classes: the caller's count overrides the description's, as DetectionModel(nc=...) does.
  int nc = m_ncOverride;
  if (nc < 1) {
    if (!m_yaml.contains("nc") || !m_yaml["nc"].is_number_integer() || m_yaml["nc"].get<int>() < 1)
      return fail("nc", "the model description has no class count nc >= 1");
    nc = m_yaml["nc"].get<int>();
  }
  a.nc = nc;

  if (m_yaml.contains("end2end") && truthy(m_yaml["end2end"]))
    return fail("end2end",
                "an end-to-end (NMS-free) head, as YOLO26 and YOLOv10 have, is not one Stave "
                "builds");
  if (m_yaml.contains("activation") && !isNone(m_yaml["activation"]))
    return fail("activation", "another activation than SiLU (" + m_yaml["activation"].dump() +
                                  ") is not one Stave builds");
  for (const char* key : {"ch", "channels"}) {
    if (m_yaml.contains(key) && !isNone(m_yaml[key]) &&
        !(m_yaml[key].is_number_integer() && m_yaml[key].get<int>() == 3))
      return fail(key, "input channels " + m_yaml[key].dump() +
                           ": Stave builds models for 3-channel (RGB) images");
  }
  a.regMax = 16;
  if (m_yaml.contains("reg_max") && !isNone(m_yaml["reg_max"])) {
    if (!m_yaml["reg_max"].is_number_integer())
      return fail("reg_max", "not a whole number: " + m_yaml["reg_max"].dump());
    a.regMax = m_yaml["reg_max"].get<int>();
    if (a.regMax < 2)
      return fail("reg_max", "reg_max " + std::to_string(a.regMax) +
                                 " (a head without DFL, as YOLO26's) is not one Stave builds; "
                                 "valid: 2 or more");
  }

  // Multipliers: scales[scale], or depth_multiple / width_multiple without a channel cap.
  double depth = 1.0;
  m_width = 1.0;
  m_maxChannels = 0;
  std::string scale;
  if (m_yaml.contains("scale") && m_yaml["scale"].is_string())
    scale = m_yaml["scale"].get<std::string>();
  if (m_yaml.contains("scales") && m_yaml["scales"].is_object() && !m_yaml["scales"].empty()) {
    const json& scales = m_yaml["scales"];
    if (scale.empty()) scale = scales.contains("n") ? "n" : scales.begin().key();
    if (!scales.contains(scale)) {
      std::string valid;
      for (const auto& item : scales.items()) valid += (valid.empty() ? "" : ", ") + item.key();
      return fail("scale",
                  "scale '" + scale + "' is not in the description's scales (" + valid + ")");
    }
    const json& s = scales[scale];
    if (!s.is_array() || s.size() != 3 || !s[0].is_number() || !s[1].is_number() ||
        !s[2].is_number())
      return fail("scales",
                  "scales." + scale + " must be [depth, width, max_channels], not " + s.dump());
    depth = s[0].get<double>();
    m_width = s[1].get<double>();
    m_maxChannels = s[2].get<int64_t>();
  } else {
    if (m_yaml.contains("depth_multiple") && m_yaml["depth_multiple"].is_number())
      depth = m_yaml["depth_multiple"].get<double>();
    if (m_yaml.contains("width_multiple") && m_yaml["width_multiple"].is_number())
      m_width = m_yaml["width_multiple"].get<double>();
  }
  if (!(depth > 0) || !(m_width > 0))
    return fail("scales", "depth and width multipliers must be positive");
  a.depth = depth;
  a.width = m_width;
  a.maxChannels = m_maxChannels;
  a.scale = scale.size() == 1 ? scale[0] : 0;

  std::vector<json> rows;
  for (const auto& r : m_yaml["backbone"]) rows.push_back(r);
  for (const auto& r : m_yaml["head"]) rows.push_back(r);
  if (rows.empty()) return fail("backbone", "the description has no layers");

  bool legacy = true;
  std::vector<int64_t> ch;      // output channels of each layer
  std::vector<int> outStrides;  // output stride of each layer
  std::set<int> save;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const json& row = rows[i];
    if (!row.is_array() || row.size() != 4 || !row[1].is_number_integer() || !row[2].is_string() ||
        !row[3].is_array())
      return layerFail(i, "expected [from, repeats, module, args], not " + row.dump());
    LayerSpec l;
    l.index = i;
    l.module = row[2].get<std::string>();
    static const std::set<std::string> known{"Conv",  "C2f",         "C3k2",   "SPPF",
                                             "C2PSA", "nn.Upsample", "Concat", "Detect"};
    if (!known.count(l.module))
      return layerFail(
          i, "module '" + l.module + "' is not one Stave builds (it builds " + kBuilt + ")");
    // From: -1 is the previous layer (the image for layer 0), other negatives count back.
    std::vector<int64_t> rawFrom;
    const bool fromList = row[0].is_array();
    if (fromList) {
      for (const auto& f : row[0]) {
        if (!f.is_number_integer()) return layerFail(i, "bad 'from' " + row[0].dump());
        rawFrom.push_back(f.get<int64_t>());
      }
    } else if (row[0].is_number_integer()) {
      rawFrom.push_back(row[0].get<int64_t>());
    } else {
      return layerFail(i, "bad 'from' " + row[0].dump());
    }
    if (rawFrom.empty()) return layerFail(i, "empty 'from'");
    for (int64_t f : rawFrom) {
      const int64_t abs = f < 0 ? i + f : f;
      if (i == 0) {
        if (f != -1) return layerFail(i, "layer 0 must read the image (from -1)");
        l.from.push_back(-1);
        l.inChannels.push_back(3);
        continue;
      }
      if (abs < 0 || abs >= i)
        return layerFail(i, "'from' " + std::to_string(f) + " is not an earlier layer");
      l.from.push_back(static_cast<int>(abs));
      l.inChannels.push_back(ch[abs]);
      if (f != -1) save.insert(static_cast<int>(abs));
    }
    const int inStride = l.from[0] < 0 ? 1 : outStrides[l.from[0]];
    l.c1 = l.inChannels[0];

    json args = json::array();
    for (const auto& v : row[3]) args.push_back(resolveArg(v, nc));
    const int64_t n0 = row[1].get<int64_t>();
    if (n0 < 1) return layerFail(i, "repeats must be >= 1, not " + std::to_string(n0));
    const int64_t n = n0 > 1 ? std::max<int64_t>(pyRound(n0 * depth), 1) : n0;
    const bool multiInput = l.module == "Concat" || l.module == "Detect";
    if (!multiInput && l.from.size() != 1)
      return layerFail(i, l.module + " takes one input, not " + row[0].dump());
    const bool repeatModule = l.module == "C2f" || l.module == "C3k2" || l.module == "C2PSA";
    if (!repeatModule && n != 1)
      return layerFail(
          i, l.module + " repeated " + std::to_string(n) + " times is not one Stave builds");
    auto badArgs = [&](const std::string& form) {
      return layerFail(i, l.module + " arguments " + argText(row[3]) + " are not of the form " +
                              form + " that Stave builds");
    };
    l.outStride = inStride;
    const bool base = l.module == "Conv" || l.module == "C2f" || l.module == "C3k2" ||
                      l.module == "SPPF" || l.module == "C2PSA";
    if (base) {
      if (args.empty() || !args[0].is_number_integer() || args[0].get<int64_t>() < 1)
        return badArgs("[c2, ...]");
      l.c2 = width(args[0].get<int64_t>());
    }
    if (l.module == "Conv") {
      // Conv(c1, c2, k=1, s=1, p=None, g=1, d=1, act=True)
      int64_t k = 1, s = 1, g = 1, d = 1;
      bool act = true;
      if (!argInt(args, 1, 1, &k) || !argInt(args, 2, 1, &s) || !argInt(args, 4, 1, &g) ||
          !argInt(args, 5, 1, &d) || !argBool(args, 6, true, &act) || k < 1 || s < 1 || g < 1 ||
          d != 1 || (args.size() > 3 && !isNone(args[3]) && args[3] != json(k / 2)) ||
          args.size() > 7 || l.c1 % g != 0 || l.c2 % g != 0)
        return badArgs("[c2, k, s, None, g, 1, act]");
      l.kernel = static_cast<int>(k);
      l.stride = static_cast<int>(s);
      l.groups = static_cast<int>(g);
      l.act = act;
      l.outStride = inStride * l.stride;
      l.args = json::array({l.c1, l.c2, k, s, nullptr, g, 1, act});
    } else if (l.module == "C2f") {
      // C2f(c1, c2, n=1, shortcut=False, g=1, e=0.5)
      int64_t g = 1;
      bool shortcut = false;
      double e = 0.5;
      if (!argBool(args, 1, false, &shortcut) || !argInt(args, 2, 1, &g) ||
          !argDouble(args, 3, 0.5, &e) || args.size() > 4 || g < 1 || !(e > 0))
        return badArgs("[c2, shortcut, g, e]");
      l.repeats = static_cast<int>(n);
      l.shortcut = shortcut;
      l.groups = static_cast<int>(g);
      l.expansion = e;
      l.args = json::array({l.c1, l.c2, n, shortcut, g, e});
    } else if (l.module == "C3k2") {
      // C3k2(c1, c2, n=1, c3k=False, e=0.5, attn=False, g=1, shortcut=True)
      legacy = false;
      bool c3k = false, attn = false, shortcut = true;
      double e = 0.5;
      int64_t g = 1;
      if (!argBool(args, 1, false, &c3k) || !argDouble(args, 2, 0.5, &e) ||
          !argBool(args, 3, false, &attn) || !argInt(args, 4, 1, &g) ||
          !argBool(args, 5, true, &shortcut) || args.size() > 6 || g < 1 || !(e > 0))
        return badArgs("[c2, c3k, e, attn, g, shortcut]");
      if (attn)
        return layerFail(i,
                         "C3k2 with attention blocks (attn=True, as in YOLO26) is not one "
                         "Stave builds");
      if (scale == "m" || scale == "l" || scale == "x") c3k = true;  // parse_model's M/L/X rule
      l.repeats = static_cast<int>(n);
      l.c3k = c3k;
      l.expansion = e;
      l.groups = static_cast<int>(g);
      l.shortcut = shortcut;
      l.args = json::array({l.c1, l.c2, n, c3k, e, attn, g, shortcut});
    } else if (l.module == "SPPF") {
      // SPPF(c1, c2, k=5): the rows with n / shortcut (YOLO26) have an unactivated cv1.
      int64_t k = 5;
      if (!argInt(args, 1, 5, &k) || k < 1 || k % 2 == 0) return badArgs("[c2, k]");
      if (args.size() > 2)
        return layerFail(i, "SPPF with pooling count / shortcut arguments " + argText(row[3]) +
                                " (YOLO26's form) is not one Stave builds");
      l.kernel = static_cast<int>(k);
      l.args = json::array({l.c1, l.c2, k});
    } else if (l.module == "C2PSA") {
      // C2PSA(c1, c2, n=1, e=0.5), c1 == c2
      double e = 0.5;
      if (!argDouble(args, 1, 0.5, &e) || args.size() > 2 || !(e > 0)) return badArgs("[c2, e]");
      if (l.c1 != l.c2)
        return layerFail(i, "C2PSA needs as many output channels as input channels (" +
                                std::to_string(l.c1) + " in, " + std::to_string(l.c2) + " out)");
      l.repeats = static_cast<int>(n);
      l.expansion = e;
      l.args = json::array({l.c1, l.c2, n, e});
    } else if (l.module == "nn.Upsample") {
      // nn.Upsample(size=None, scale_factor, mode="nearest")
      const bool ok = args.size() >= 2 && args.size() <= 3 && isNone(args[0]) &&
                      args[1].is_number() && args[1].get<double>() >= 1 &&
                      args[1].get<double>() == std::floor(args[1].get<double>()) &&
                      (args.size() < 3 || args[2] == "nearest");
      if (!ok) return badArgs("[None, integer scale, \"nearest\"]");
      l.stride = static_cast<int>(args[1].get<double>());
      if (inStride % l.stride != 0)
        return layerFail(i, "upsampling by " + std::to_string(l.stride) + " a map of stride " +
                                std::to_string(inStride));
      l.outStride = inStride / l.stride;
      l.c2 = l.c1;
      l.args = json::array({nullptr, l.stride, "nearest"});
    } else if (l.module == "Concat") {
      if (!(args.empty() ||
            (args.size() == 1 && args[0].is_number_integer() && args[0].get<int64_t>() == 1)))
        return badArgs("[1]");
      l.c2 = 0;
      for (size_t j = 0; j < l.from.size(); ++j) {
        l.c2 += l.inChannels[j];
        const int sj = l.from[j] < 0 ? 1 : outStrides[l.from[j]];
        if (sj != inStride)
          return layerFail(i, "Concat of maps of strides " + std::to_string(inStride) + " and " +
                                  std::to_string(sj));
      }
      l.args = json::array({1});
    } else if (l.module == "Detect") {
      if (args.empty() || !args[0].is_number_integer() || args[0].get<int64_t>() < 1 ||
          args.size() > 1)
        return badArgs("[nc]");
      a.nc = args[0].get<int>();
      if (i != static_cast<int>(rows.size()) - 1)
        return layerFail(i, "Detect must be the last layer");
      for (int f : l.from) {
        if (f < 0) return layerFail(i, "Detect cannot read the image");
        a.detectFrom.push_back(f);
        a.strides.push_back(outStrides[f]);
      }
      l.c2 = 4 * a.regMax + a.nc;
      l.args = json::array({a.nc, a.regMax, false, l.inChannels});
    } else {
      return layerFail(
          i, "module '" + l.module + "' is not one Stave builds (it builds " + kBuilt + ")");
    }
    ch.push_back(l.c2);
    outStrides.push_back(l.outStride);
    a.layers.push_back(std::move(l));
  }
  if (a.layers.back().module != "Detect")
    return fail("head", "the last layer is " + a.layers.back().module +
                            ", not Detect (Stave builds detection models)");
  a.legacyHead = legacy;
  a.family = legacy ? "yolov8" : "yolo11";
  a.save.assign(save.begin(), save.end());
  // The name Ultralytics shows: the yaml file's stem when there is one (yolo11n.yaml), else
  // the family and scale.
  std::string stem;
  if (m_yaml.contains("yaml_file") && m_yaml["yaml_file"].is_string()) {
    stem = m_yaml["yaml_file"].get<std::string>();
    const auto slash = stem.find_last_of("/\\");
    if (slash != std::string::npos) stem = stem.substr(slash + 1);
    const auto dot = stem.rfind('.');
    if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  }
  a.name = !stem.empty() ? stem : a.family + (a.scale ? std::string(1, a.scale) : std::string());
  a.yaml = m_yaml;
  a.yaml["nc"] = a.nc;
  if (a.scale) a.yaml["scale"] = std::string(1, a.scale);
  return a;
}

}  // namespace

int64_t makeDivisible(double x, int64_t divisor) {
  return static_cast<int64_t>(std::ceil(x / static_cast<double>(divisor))) * divisor;
}

const std::vector<std::string>& architectureNames() {
  static const std::vector<std::string> names{"yolov8n", "yolov8s", "yolov8m", "yolov8l",
                                              "yolov8x", "yolo11n", "yolo11s", "yolo11m",
                                              "yolo11l", "yolo11x"};
  return names;
}

json builtinYaml(const std::string& family) {
  static const json v8 = json::parse(kYolov8);
  static const json v11 = json::parse(kYolo11);
  if (family == "yolov8") return v8;
  if (family == "yolo11") return v11;
  return json();
}

Result<Architecture> architectureFor(const std::string& model, int nc) {
  std::string s = model;
  for (const char* suffix : {".yaml", ".pt"}) {
    const std::string suf = suffix;
    if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
      s = s.substr(0, s.size() - suf.size());
      break;
    }
  }
  std::string family, letter;
  auto isScale = [](const std::string& x) {
    return x.size() == 1 && std::string("nsmlx").find(x[0]) != std::string::npos;
  };
  if (isScale(s)) {
    family = "yolov8";
    letter = s;
  } else if (s.size() == 7 && s.rfind("yolov8", 0) == 0 && isScale(s.substr(6))) {
    family = "yolov8";
    letter = s.substr(6);
  } else if (s.size() == 7 && s.rfind("yolo11", 0) == 0 && isScale(s.substr(6))) {
    family = "yolo11";
    letter = s.substr(6);
  } else {
    return Error{"", 0, "model",
                 "unknown model '" + model +
                     "' (valid: yolov8n, yolov8s, yolov8m, yolov8l, yolov8x, yolo11n, yolo11s, "
                     "yolo11m, yolo11l, yolo11x, each optionally with .yaml; or a scale n, s, m, "
                     "l, x for YOLOv8)"};
  }
  if (nc < 1) return Error{"", 0, "nc", "the class count must be >= 1, not " + std::to_string(nc)};
  json yaml = builtinYaml(family);
  yaml["scale"] = letter;
  yaml["yaml_file"] = family + letter + ".yaml";
  yaml["channels"] = 3;
  return architectureFromYaml(yaml, nc, "");
}

Result<Architecture> architectureFromYaml(const nlohmann::json& yaml, int nc,
                                          const std::string& what) {
  return Parser(yaml, nc, what).run();
}

}  // namespace stave::model
