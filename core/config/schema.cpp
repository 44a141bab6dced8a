#include "core/config/schema.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/base/result.h"

namespace stave::config {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using G = ParamGroup;
using T = ParamType;

ParamSpec boolP(const char* name, bool def, G g, const char* help, bool ul) {
  return ParamSpec{name, T::Bool, def, -kInf, kInf, {}, g, help, ul};
}
ParamSpec intP(const char* name, int64_t def, double lo, double hi, G g, const char* help,
               bool ul) {
  return ParamSpec{name, T::Int, def, lo, hi, {}, g, help, ul};
}
ParamSpec floatP(const char* name, double def, double lo, double hi, G g, const char* help,
                 bool ul) {
  return ParamSpec{name, T::Float, def, lo, hi, {}, g, help, ul};
}
ParamSpec strP(const char* name, const char* def, G g, const char* help, bool ul) {
  return ParamSpec{name, T::String, std::string(def), -kInf, kInf, {}, g, help, ul};
}
ParamSpec pathP(const char* name, G g, const char* help, bool ul) {
  return ParamSpec{name, T::Path, std::string(), -kInf, kInf, {}, g, help, ul};
}
ParamSpec enumP(const char* name, const char* def, std::vector<std::string> choices, G g,
                const char* help, bool ul) {
  return ParamSpec{name, T::Enum, std::string(def), -kInf, kInf, std::move(choices), g, help, ul};
}

// Ultralytics' names and defaults where it has the parameter (ultralytics/cfg/default.yaml);
// `batch` is per rank in Stave (see derive()).
std::vector<ParamSpec> buildSchema() {
  return {
      // Model
      enumP("model", "yolov8n", {"yolov8n", "yolov8s", "yolov8m", "yolov8l", "yolov8x"}, G::Model,
            "network scale, yolov8n (smallest) to yolov8x; a '.yaml' suffix is accepted", true),
      pathP("pretrained", G::Model,
            "Stave checkpoint (.pt) to start from (tensors matching by name and shape); "
            "empty = random weights",
            true),
      intP("freeze", 0, 0, 22, G::Model, "freeze the first N layers of the network (0 = none)",
           true),
      // Data
      pathP("data", G::Data, "dataset description (data.yaml, YOLO format)", true),
      intP("imgsz", 640, 32, 8192, G::Data, "training and validation image size in pixels", true),
      floatP("fraction", 1.0, 0.01, 1.0, G::Data, "fraction of the training images to use", true),
      boolP("single_cls", false, G::Data, "train all classes as one class", true),
      enumP("cache", "none", {"none", "ram", "disk"}, G::Data,
            "cache decoded images in RAM or on disk", true),
      floatP("max_bad_images", 0.01, 0.0, 1.0, G::Data,
             "fail the run when more than this fraction of a split's images cannot be decoded "
             "(each one is used as a grey image without boxes, with a warning)",
             false),
      boolP("rect", true, G::Data,
            "validate in rectangular batches, as Ultralytics does (false: letterbox to squares)",
            false),
      intP("workers", 8, 0, 256, G::Data,
           "data loader threads per rank (at most the CPU cores per rank, as Ultralytics caps it)",
           true),
      intP("prefetch", 4, 1, 64, G::Data, "batches prepared ahead per rank", false),
      boolP("persistent_workers", true, G::Data, "keep loader threads alive between epochs", false),
      // Optimisation
      intP("epochs", 100, 1, 100000, G::Optimisation, "number of epochs to train", true),
      floatP("time", 0.0, 0.0, 100000.0, G::Optimisation,
             "maximum training time in hours, overrides epochs (0 = off)", true),
      intP("patience", 100, 0, 100000, G::Optimisation,
           "epochs without improvement before stopping early (0 = never)", true),
      intP("batch", 16, 1, 65536, G::Optimisation,
           "images per batch PER RANK (global batch = batch x world size)", true),
      intP("nbs", 64, 1, 65536, G::Optimisation,
           "nominal batch size: gradients are accumulated up to it", true),
      enumP("optimizer", "auto", {"SGD", "AdamW", "auto"}, G::Optimisation,
            "optimizer; auto picks SGD or AdamW (and lr0) from the run length", true),
      floatP("lr0", 0.01, 0.0, 10.0, G::Optimisation, "initial learning rate", true),
      floatP("lrf", 0.01, 0.0, 1.0, G::Optimisation, "final learning rate as a fraction of lr0",
             true),
      floatP("momentum", 0.937, 0.0, 1.0, G::Optimisation, "SGD momentum / Adam beta1", true),
      floatP("weight_decay", 0.0005, 0.0, 1.0, G::Optimisation,
             "weight decay at the nominal batch size", true),
      floatP("warmup_epochs", 3.0, 0.0, 1000.0, G::Optimisation,
             "warmup length in epochs (fractions allowed)", true),
      floatP("warmup_momentum", 0.8, 0.0, 1.0, G::Optimisation, "momentum at the start of warmup",
             true),
      floatP("warmup_bias_lr", 0.1, 0.0, 10.0, G::Optimisation,
             "bias learning rate at the start of warmup", true),
      boolP("cos_lr", false, G::Optimisation, "cosine learning-rate schedule instead of linear",
            true),
      boolP("scale_lr_with_batch", false, G::Optimisation,
            "scale lr0 by global batch / 64 (linear scaling rule)", false),
      floatP("box", 7.5, 0.0, 1000.0, G::Optimisation, "box (CIoU) loss gain", true),
      floatP("cls", 0.5, 0.0, 1000.0, G::Optimisation, "classification (BCE) loss gain", true),
      floatP("dfl", 1.5, 0.0, 1000.0, G::Optimisation, "distribution focal loss gain", true),
      intP("seed", 0, 0, 4294967295.0, G::Optimisation, "random seed", true),
      boolP("deterministic", true, G::Optimisation, "use deterministic algorithms where possible",
            true),
      boolP("resume", false, G::Optimisation, "resume from the run's last checkpoint", true),
      // Augmentation
      floatP("hsv_h", 0.015, 0.0, 1.0, G::Augmentation, "hue jitter (fraction)", true),
      floatP("hsv_s", 0.7, 0.0, 1.0, G::Augmentation, "saturation jitter (fraction)", true),
      floatP("hsv_v", 0.4, 0.0, 1.0, G::Augmentation, "value (brightness) jitter (fraction)", true),
      floatP("degrees", 0.0, 0.0, 180.0, G::Augmentation, "rotation (+/- degrees)", true),
      floatP("translate", 0.1, 0.0, 1.0, G::Augmentation, "translation (+/- fraction)", true),
      floatP("scale", 0.5, 0.0, 0.99, G::Augmentation,
             "scale gain (+/- fraction; augmentation, not the model scale)", true),
      floatP("shear", 0.0, 0.0, 90.0, G::Augmentation, "shear (+/- degrees)", true),
      floatP("perspective", 0.0, 0.0, 0.001, G::Augmentation, "perspective (+/- fraction)", true),
      floatP("flipud", 0.0, 0.0, 1.0, G::Augmentation, "probability of an up-down flip", true),
      floatP("fliplr", 0.5, 0.0, 1.0, G::Augmentation, "probability of a left-right flip", true),
      floatP("mosaic", 1.0, 0.0, 1.0, G::Augmentation, "probability of a 4-image mosaic", true),
      floatP("mixup", 0.0, 0.0, 1.0, G::Augmentation, "probability of mixup", true),
      intP("close_mosaic", 10, 0, 100000, G::Augmentation,
           "turn mosaic off for the last N epochs (0 = never)", true),
      boolP("multi_scale", false, G::Augmentation, "vary the image size +/- 50% per batch", true),
      // Hardware
      strP("devices", "", G::Hardware,
           "GPUs to use: empty = all visible, 'cpu', or a list such as '0,1,3'", false),
      intP("nproc", 1, 1, 1024, G::Hardware, "processes (ranks) per node, one per GPU", false),
      enumP("precision", "auto", {"auto", "fp32", "fp16", "bf16"}, G::Hardware,
            "compute precision with amp; auto = bf16 on GPUs from Ampere on, fp16 on older "
            "GPUs, fp32 on the CPU (bf16 there is faster but learns less)",
            false),
      boolP("amp", true, G::Hardware, "automatic mixed precision", true),
      enumP("channels_last", "auto", {"auto", "true", "false"}, G::Hardware,
            "channels-last (NHWC) memory format for images and model; auto = on for the CPU, "
            "off on CUDA",
            false),
      boolP("pin_memory", true, G::Hardware, "collate batches into pinned host memory", false),
      intP("threads", 0, 0, 1024, G::Hardware, "intra-op CPU threads per rank (0 = all cores)",
           false),
      // Distributed
      boolP("sync_bn", false, G::Distributed, "SyncBatchNorm: BatchNorm over the global batch of all ranks while training",
            false),
floatP("bucket_mb", 25.0, 0.01, 4096.0, G::Distributed,
             "gradient bucket size for all-reduce, MiB (PyTorch DDP's bucket_cap_mb)", false),
      enumP("nccl_p2p_level", "", {"", "LOC", "NVL", "PIX", "PXB", "PHB", "SYS"}, G::Distributed,
            "NCCL_P2P_LEVEL (empty = NCCL's choice)", false),
      boolP("nccl_shm_disable", false, G::Distributed, "set NCCL_SHM_DISABLE=1", false),
      enumP("nccl_debug", "", {"", "VERSION", "WARN", "INFO", "TRACE"}, G::Distributed,
            "NCCL_DEBUG level (empty = off)", false),
      intP("nccl_timeout_s", 1800, 1, 604800, G::Distributed,
           "collective timeout; a rank silent this long counts as hung", false),
      strP("master_addr", "127.0.0.1", G::Distributed, "address of rank 0's rendezvous store",
           false),
      intP("master_port", 0, 0, 65535, G::Distributed, "rendezvous port (0 = pick a free one)",
           false),
      intP("nnodes", 1, 1, 100000, G::Distributed, "number of nodes (machines)", false),
      intP("node_rank", 0, 0, 99999, G::Distributed, "this node's index, 0 .. nnodes-1", false),
      // Logging (validation, checkpoints, names)
      boolP("val", true, G::Logging, "validate during training", true),
      intP("val_period", 1, 1, 100000, G::Logging, "validate every N epochs", false),
      floatP("conf", 0.001, 0.0, 1.0, G::Logging, "confidence threshold for validation NMS", true),
      floatP("iou", 0.7, 0.0, 1.0, G::Logging, "IoU threshold for validation NMS", true),
      intP("max_det", 300, 1, 100000, G::Logging, "maximum detections per image", true),
      intP("save_period", -1, -1, 100000, G::Logging,
           "save a checkpoint every N epochs (-1 = only last and best)", true),
      strP("name", "", G::Logging,
           "run name, one folder name under project (empty = train); taken names get 2, 3, ...",
           true),
      boolP("exist_ok", false, G::Logging,
            "reuse the run folder of name (or --run-dir) even if it holds a run: the old run is "
            "moved aside to <folder>-replaced-<time> first",
            true),
      strP("project", "", G::Logging, "folder for runs (empty = beside the project file)", true),
      floatP("sample_period_s", 0.5, 0.0, 3600.0, G::Logging,
             "seconds between the node's GPU and system samples in the event log (0 = off)", true),
      floatP("report_period_s", 30.0, 0.0, 86400.0, G::Logging,
             "seconds between the straggler and doctor reports (diagnosis events) of a run; "
             "0 = only the doctor's final report",
             false),
      intP("metrics_port", 0, 0, 65535, G::Logging,
           "serve Prometheus metrics of the run on this port (0 = off); a port in use stops "
           "the run before it starts",
           false),
      strP("metrics_addr", "127.0.0.1", G::Logging,
           "address the metrics port listens on (0.0.0.0 = every interface)", false),
      boolP("tensorboard", true, G::Logging,
            "also write TensorBoard event files (losses, metrics, lr, samples/s, GPU samples) "
            "to <run>/tb/, for tensorboard --logdir",
            true),
  };
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The spellings of a bool a config accepts: true/yes/on, false/no/off, any case.
std::optional<bool> boolFromText(const std::string& text) {
  const std::string l = lower(text);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  return std::nullopt;
}

bool parseInt(const std::string& t, int64_t* out) {
  if (t.empty()) return false;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i >= t.size()) return false;
  for (size_t k = i; k < t.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(t[k]))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool parseFloat(const std::string& t, double* out) {
  if (t.empty()) return false;
  // strtod also reads hex, inf and nan; a config value is plain decimal.
  for (char c : t)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '-' || c == '+'))
      return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string quoteForMessage(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string formatBound(const ParamSpec& spec, double v) {
  if (spec.type == ParamType::Int) {
    std::ostringstream os;
    os << static_cast<int64_t>(v);
    return os.str();
  }
  return formatFloat(v);
}

// Rules a range cannot express. Keyed by name so each row's extra rule sits in one place.
std::string extraRule(const ParamSpec& spec, const Value& value) {
  if (spec.name == "imgsz") {
    if (std::get<int64_t>(value) % 32 != 0)
      return "must be a multiple of 32 (the largest stride), got " + formatValue(value);
  } else if (spec.name == "devices") {
    const auto& s = std::get<std::string>(value);
    if (s.empty() || s == "cpu") return "";
    bool ok = true, digit = false;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digit = true;
      } else if (c == ',' && digit && i + 1 < s.size()) {
        digit = false;
      } else {
        ok = false;
        break;
      }
    }
    if (!ok || !digit)
      return "expected '' (all visible GPUs), 'cpu' or GPU indices such as '0,1,3', got " +
             quoteForMessage(s);
    // Two ranks on one GPU would each assume the whole card (memory, NCCL peers).
    std::vector<std::string> seen;
    std::istringstream in(s);
    for (std::string id; std::getline(in, id, ',');) {
      id.erase(0, std::min(id.find_first_not_of('0'), id.size() - 1));  // "00" is GPU 0
      if (std::find(seen.begin(), seen.end(), id) != seen.end())
        return "GPU " + id + " is listed twice in " + quoteForMessage(s) +
               "; each rank needs a GPU of its own";
      seen.push_back(id);
    }
  } else if (spec.name == "master_addr") {
    if (std::get<std::string>(value).empty()) return "must not be empty (e.g. 127.0.0.1)";
  }
  return "";
}

}  // namespace

const std::vector<ParamSpec>& runConfigSchema() {
  static const std::vector<ParamSpec> schema = buildSchema();
  return schema;
}

const ParamSpec* findParam(std::string_view name) {
  for (const auto& p : runConfigSchema())
    if (p.name == name) return &p;
  return nullptr;
}

size_t paramIndex(std::string_view name) {
  const auto& s = runConfigSchema();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i].name == name) return i;
  STAVE_CHECK(false, "unknown config key '" << name << "'");
  return 0;
}

double defaultNumber(std::string_view name) {
  const Value& v = runConfigSchema()[paramIndex(name)].defaultValue;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  const auto* d = std::get_if<double>(&v);
  STAVE_CHECK(d, "config key '" << name << "' has no numeric default");
  return *d;
}

std::string closestParam(std::string_view name) {
  std::string best;
  size_t bestDist = std::numeric_limits<size_t>::max();
  const std::string lname = lower(std::string(name));
  for (const auto& p : runConfigSchema()) {
    size_t d = editDistance(lname, p.name);
    if (d < bestDist) {
      bestDist = d;
      best = p.name;
    }
  }
  // Close enough to be a typo: one edit per four characters, at least one.
  const size_t limit = std::max<size_t>(1, name.size() / 4);
  return bestDist <= limit ? best : std::string();
}

const char* paramTypeName(ParamType type) {
  switch (type) {
    case T::Bool:
      return "bool";
    case T::Int:
      return "int";
    case T::Float:
      return "float";
    case T::String:
      return "string";
    case T::Enum:
      return "enum";
    case T::Path:
      return "path";
    case T::IntList:
      return "int list";
  }
  return "?";
}

const char* paramGroupName(ParamGroup group) {
  switch (group) {
    case G::Model:
      return "model";
    case G::Data:
      return "data";
    case G::Optimisation:
      return "optimisation";
    case G::Augmentation:
      return "augmentation";
    case G::Hardware:
      return "hardware";
    case G::Distributed:
      return "distributed";
    case G::Logging:
      return "logging";
  }
  return "?";
}

const std::vector<ParamGroup>& paramGroups() {
  static const std::vector<ParamGroup> groups = {
      G::Model, G::Data, G::Optimisation, G::Augmentation, G::Hardware, G::Distributed, G::Logging};
  return groups;
}

bool valueHasType(ParamType type, const Value& value) {
  switch (type) {
    case T::Bool:
      return std::holds_alternative<bool>(value);
    case T::Int:
      return std::holds_alternative<int64_t>(value);
    case T::Float:
      return std::holds_alternative<double>(value);
    case T::String:
    case T::Enum:
    case T::Path:
      return std::holds_alternative<std::string>(value);
    case T::IntList:
      return std::holds_alternative<std::vector<int64_t>>(value);
  }
  return false;
}

std::string formatFloat(double v) {
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  } else if (auto e = s.find('e'); e != std::string::npos && s.find('.') == std::string::npos) {
    s.insert(e, ".0");  // PyYAML (YAML 1.1) reads 1e-05 as a string, 1.0e-05 as a float
  }
  return s;
}

std::string formatValue(const Value& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatFloat(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<int64_t>& v) const {
      std::string out;
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
      return out;
    }
  };
  return std::visit(Visitor{}, value);
}

std::string describeRange(const ParamSpec& spec) {
  switch (spec.type) {
    case T::Bool:
      return "true or false";
    case T::Int:
    case T::Float: {
      const std::string what = spec.type == T::Int ? "an integer" : "a number";
      if (std::isinf(spec.min) && std::isinf(spec.max)) return what;
      if (std::isinf(spec.max)) return what + " >= " + formatBound(spec, spec.min);
      if (std::isinf(spec.min)) return what + " <= " + formatBound(spec, spec.max);
      return what + " in [" + formatBound(spec, spec.min) + ", " + formatBound(spec, spec.max) +
             "]";
    }
    case T::Enum: {
      std::string out = "one of ";
      for (size_t i = 0; i < spec.choices.size(); ++i) {
        if (i) out += ", ";
        out += spec.choices[i].empty() ? "'' (empty)" : spec.choices[i];
      }
      return out;
    }
    case T::String:
      return "a string";
    case T::Path:
      return "a path";
    case T::IntList:
      return "a list of integers such as 0,1,2";
  }
  return "";
}

bool enumTakesBool(const ParamSpec& spec) {
  auto has = [&spec](const char* c) {
    return std::find(spec.choices.begin(), spec.choices.end(), c) != spec.choices.end();
  };
  return spec.type == T::Enum && has("true") && has("false");
}

std::optional<Value> parseValueText(const ParamSpec& spec, std::string_view raw, std::string* why) {
  const std::string text =
      (spec.type == T::String || spec.type == T::Path) ? std::string(raw) : trim(raw);
  auto fail = [&](const std::string& expected) -> std::optional<Value> {
    if (why) *why = "expected " + expected + ", got " + quoteForMessage(text);
    return std::nullopt;
  };
  switch (spec.type) {
    case T::Bool: {
      if (auto b = boolFromText(text)) return Value(*b);
      return fail("true or false");
    }
    case T::Int: {
      int64_t v = 0;
      if (!parseInt(text, &v)) return fail("an integer");
      return Value(v);
    }
    case T::Float: {
      double v = 0;
      if (!parseFloat(text, &v)) return fail("a number");
      return Value(v);
    }
    case T::Enum:
      // An auto/true/false key reads the spellings a bool key reads (old files held a bool).
      if (enumTakesBool(spec)) {
        if (auto b = boolFromText(text)) return Value(std::string(*b ? "true" : "false"));
      }
      return Value(text);
    case T::String:
    case T::Path:
      return Value(text);
    case T::IntList: {
      std::vector<int64_t> out;
      std::string t = text;
      if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
      if (trim(t).empty()) return Value(out);
      std::stringstream ss(t);
      std::string item;
      while (std::getline(ss, item, ',')) {
        int64_t v = 0;
        if (!parseInt(trim(item), &v)) return fail("a list of integers such as 0,1,2");
        out.push_back(v);
      }
      return Value(out);
    }
  }
  return std::nullopt;
}

std::string checkValue(const ParamSpec& spec, const Value& value) {
  if (!valueHasType(spec.type, value)) {
    if (!(spec.type == T::Float && std::holds_alternative<int64_t>(value)))
      return std::string("expected ") + paramTypeName(spec.type) + " (" + describeRange(spec) +
             "), got " + formatValue(value);
  }
  switch (spec.type) {
    case T::Int:
    case T::Float: {
      const double v = std::holds_alternative<int64_t>(value)
                           ? static_cast<double>(std::get<int64_t>(value))
                           : std::get<double>(value);
      if (v < spec.min || v > spec.max)
        return formatValue(value) + " is out of range: expected " + describeRange(spec);
      break;
    }
    case T::Enum: {
      std::string s = std::get<std::string>(value);
      // model accepts Ultralytics' architecture file names too.
      if (spec.name == "model" && s.size() > 5 && s.compare(s.size() - 5, 5, ".yaml") == 0)
        s.resize(s.size() - 5);
      if (std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
        return quoteForMessage(std::get<std::string>(value)) + " is not valid: expected " +
               describeRange(spec);
      break;
    }
    default:
      break;
  }
  return extraRule(spec, value);
}

std::string modelScale(std::string_view model) {
  std::string m(model);
  if (m.size() > 5 && m.compare(m.size() - 5, 5, ".yaml") == 0) m.resize(m.size() - 5);
  if (m.size() == 7 && m.rfind("yolov8", 0) == 0 &&
      std::string_view("nsmlx").find(m[6]) != std::string_view::npos)
    return std::string(1, m[6]);
  return "";
}

std::string schemaMarkdown() {
  std::ostringstream os;
  os << "# Stave run configuration\n\n"
     << "Generated by `stave-train config-docs` from the schema in core/config/schema.cpp;\n"
     << "do not edit by hand. Every key can be set in a config file (YAML or JSON), as\n"
     << "`key=value` on the `stave-train train` command line, or in the studio's form.\n"
     << "Column U: the key has the same name in Ultralytics (exported by\n"
     << "`stave-train export --format ultralytics`).\n\n"
     << "In Stave `batch` is per rank: the global batch is batch x world size, gradients are\n"
     << "accumulated for max(round(nbs / global batch), 1) steps (the warmup ramps this from 1;\n"
     << "a run with fewer batches in all, and no `time` limit, accumulates over all of them, as\n"
     << "Ultralytics does), weight decay is scaled by global batch x accumulate / nbs, and with\n"
     << "`scale_lr_with_batch` lr0 is multiplied by global batch / 64. Ultralytics' `batch` is\n"
     << "the global batch; the exports convert.\n\n"
     << "Every key here is read by the engine: a unit test (unit_train_every_setting) sets each\n"
     << "one to another valid value and fails if nothing the trainer, the data loaders, the\n"
     << "optimiser, the launcher or the run's telemetry receive changes. `lr0`, `momentum` and\n"
     << "`warmup_bias_lr` act only with an explicit `optimizer` (`auto` picks its own, as\n"
     << "Ultralytics does).\n";
  for (ParamGroup g : paramGroups()) {
    std::string title = paramGroupName(g);
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    os << "\n## " << title << "\n\n"
       << "| key | type | default | valid | U | description |\n"
       << "|---|---|---|---|---|---|\n";
    for (const auto& p : runConfigSchema()) {
      if (p.group != g) continue;
      std::string def = formatValue(p.defaultValue);
      if (p.type == T::String || p.type == T::Path || p.type == T::Enum)
        def = def.empty() ? "''" : def;
      std::string range = describeRange(p);
      for (auto& c : range)
        if (c == '|') c = '/';
      os << "| `" << p.name << "` | " << paramTypeName(p.type) << " | `" << def << "` | " << range
         << " | " << (p.ultralytics ? "yes" : "") << " | " << p.help << " |\n";
    }
  }
  return os.str();
}

}  // namespace stave::config

namespace stave::config {
namespace {
std::string cppString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string schemaTranslationSource() {
  std::string out =
      "// Generated by `stave-train config-docs --format tr` from core/config/schema.cpp; do not\n"
      "// edit by hand (scripts/update-translations regenerates it). The schema's texts, listed\n"
      "// for lupdate: the studio shows them through QCoreApplication::translate.\n"
      "#include <QtGlobal>\n\n"
      "namespace stave::studio {\n\n"
      "extern const char* const kSchemaStrings[];\n"
      "const char* const kSchemaStrings[] = {\n";
  const std::string ctx = cppString(kSchemaTrContext);
  for (ParamGroup g : paramGroups())
    out += "    QT_TRANSLATE_NOOP(" + ctx + ", " + cppString(paramGroupName(g)) + "),\n";
  for (const ParamSpec& p : runConfigSchema())
    out += "    QT_TRANSLATE_NOOP(" + ctx + ", " + cppString(p.help) + "),  // " + p.name + "\n";
  out += "    nullptr};\n\n}  // namespace stave::studio\n";
  return out;
}

}  // namespace stave::config
